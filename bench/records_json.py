"""The host's records files (`host --json`), as the bench scripts write back into them."""
import json
import os
import tempfile


def write_atomic(path, doc):
    """Writes `doc` as JSON to a temporary file beside `path`, then renames it over `path`
    (keeping its permissions), so that a reader never sees half a file."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, temp = tempfile.mkstemp(prefix=".records-", suffix=".json", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=2, ensure_ascii=False, allow_nan=False)
            f.write("\n")
        if os.path.exists(path):
            os.chmod(temp, os.stat(path).st_mode & 0o777)
        os.replace(temp, path)
    except BaseException:
        if os.path.exists(temp):
            os.unlink(temp)
        raise

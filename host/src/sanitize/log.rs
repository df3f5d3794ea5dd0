//! Reading a finished run's log: the tool's summary line, the tests' result line, and the
//! verdict and line printed for the run (the patterns are in the module's table, [`super`]).

/// A tool's summary line, read from its log.
#[derive(Debug, PartialEq)]
pub struct Summary {
    /// Errors; for racecheck, hazards (errors and warnings).
    pub count: u64,
    /// `errors N`, or `hazards N (errors E, warnings W)`.
    pub text: String,
}

/// The libtest result line of the test binary.
#[derive(Debug, PartialEq)]
pub struct TestResult {
    pub ok: bool,
    pub passed: u64,
    pub failed: u64,
    pub ignored: u64,
}

/// A tiny matcher for the fixed summary formats: literals and decimal numbers.
struct Cursor<'a>(&'a str);

impl Cursor<'_> {
    fn literal(&mut self, text: &str) -> Option<()> {
        self.0 = self.0.strip_prefix(text)?;
        Some(())
    }

    fn optional(&mut self, text: &str) {
        let _ = self.literal(text);
    }

    fn number(&mut self) -> Option<u64> {
        let digits = self.0.find(|c: char| !c.is_ascii_digit()).unwrap_or(self.0.len());
        let value = self.0[..digits].parse().ok()?;
        self.0 = &self.0[digits..];
        Some(value)
    }
}

/// The last match of `parse` at any position of any line of `log`.
fn last_match<T>(log: &str, marker: &str, parse: impl Fn(&mut Cursor) -> Option<T>) -> Option<T> {
    let mut found = None;
    for line in log.lines() {
        let mut from = 0;
        while let Some(at) = line[from..].find(marker) {
            let start = from + at;
            if let Some(value) = parse(&mut Cursor(&line[start..])) {
                found = Some(value);
            }
            from = start + marker.len();
        }
    }
    found
}

/// The tool's summary in `log` (see the module's table of patterns), or `None` when there is
/// none: the tool did not finish.
pub fn parse_summary(tool: &str, log: &str) -> Option<Summary> {
    if tool == "racecheck" {
        last_match(log, "RACECHECK SUMMARY: ", |c| {
            c.literal("RACECHECK SUMMARY: ")?;
            let hazards = c.number()?;
            c.literal(" hazard")?;
            c.optional("s");
            c.literal(" displayed (")?;
            let errors = c.number()?;
            c.literal(" error")?;
            c.optional("s");
            c.literal(", ")?;
            let warnings = c.number()?;
            c.literal(" warning")?;
            c.optional("s");
            c.literal(")")?;
            Some(Summary {
                count: hazards,
                text: format!("hazards {hazards} (errors {errors}, warnings {warnings})"),
            })
        })
    } else {
        last_match(log, "ERROR SUMMARY: ", |c| {
            c.literal("ERROR SUMMARY: ")?;
            let errors = c.number()?;
            c.literal(" error")?;
            Some(Summary { count: errors, text: format!("errors {errors}") })
        })
    }
}

/// The test binary's last `test result:` line in `log`.
pub fn parse_test_result(log: &str) -> Option<TestResult> {
    last_match(log, "test result: ", |c| {
        c.literal("test result: ")?;
        let ok = if c.literal("ok").is_some() {
            true
        } else {
            c.literal("FAILED")?;
            false
        };
        c.literal(". ")?;
        let passed = c.number()?;
        c.literal(" passed; ")?;
        let failed = c.number()?;
        c.literal(" failed; ")?;
        let ignored = c.number()?;
        c.literal(" ignored")?;
        Some(TestResult { ok, passed, failed, ignored })
    })
}

/// One tool's run over the tests.
#[derive(Debug)]
pub struct Outcome {
    pub tool: String,
    pub summary: Option<Summary>,
    pub tests: Option<TestResult>,
    /// compute-sanitizer's exit status as a shell reports it (128 + N for signal N).
    pub exit: i32,
    pub seconds: f64,
}

impl Outcome {
    /// Reads a finished run's log.
    pub fn from_log(tool: &str, log: &str, exit: i32, seconds: f64) -> Outcome {
        Outcome {
            tool: tool.to_string(),
            summary: parse_summary(tool, log),
            tests: parse_test_result(log),
            exit,
            seconds,
        }
    }

    /// Clean: a summary of zero, the tests passed (at least one of them), and a zero exit
    /// status.
    pub fn passed(&self) -> bool {
        self.summary.as_ref().is_some_and(|s| s.count == 0)
            && self.tests.as_ref().is_some_and(|t| t.ok && t.passed > 0)
            && self.exit == 0
    }

    /// The one line for this run, naming its log as `log`.
    pub fn line(&self, log: &str) -> String {
        let summary = self.summary.as_ref().map_or("no summary line", |s| s.text.as_str());
        let tests = self.tests.as_ref().map_or_else(
            || "no test result line".to_string(),
            |t| {
                format!(
                    "tests {}: {} passed, {} failed, {} ignored",
                    if t.ok { "ok" } else { "FAILED" },
                    t.passed,
                    t.failed,
                    t.ignored
                )
            },
        );
        format!(
            "{:<9} {:<4} {summary}; {tests}; exit {}; {:.1} s; log {log}",
            self.tool,
            if self.passed() { "ok" } else { "FAIL" },
            self.exit,
            self.seconds
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MEMCHECK_CLEAN: &str = "\
========= COMPUTE-SANITIZER

running 93 tests
test fill_matches_the_cpu_generator ... ok
test all_kernels/n_past_2^32 ... ignored
test result: ok. 87 passed; 0 failed; 5 ignored; 0 measured; 1 filtered out; finished in 212.40s

========= ERROR SUMMARY: 0 errors
";

    const MEMCHECK_THREE: &str = "\
========= COMPUTE-SANITIZER
========= Invalid __global__ read of size 16 bytes
=========     at v3_bounds_checked+0x1f0
=========     by thread (255,0,0) in block (4095,0,0)
=========     Address 0x7f3a00400000 is out of bounds
test v3_bounds_checked/block_256/awkward_sizes ... FAILED
test result: FAILED. 86 passed; 1 failed; 5 ignored; 0 measured; 1 filtered out; finished in 30.02s
========= ERROR SUMMARY: 3 errors
";

    const RACECHECK_WARNINGS: &str = "\
========= COMPUTE-SANITIZER
========= Warning: Race reported between Write access at h4_unrolled_last_warp+0x3a0
=========     and Read access at h4_unrolled_last_warp+0x3f0 [96 hazards]
test result: ok. 87 passed; 0 failed; 5 ignored; 0 measured; 1 filtered out; finished in 801.00s
========= RACECHECK SUMMARY: 3 hazards displayed (0 errors, 3 warnings)
";

    const RACECHECK_CLEAN: &str = "\
test result: ok. 87 passed; 0 failed; 5 ignored; 0 measured; 1 filtered out; finished in 801.00s
========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)
";

    const NOTHING_RAN: &str = "\
test result: ok. 0 passed; 0 failed; 92 ignored; 0 measured; 1 filtered out; finished in 0.00s
========= ERROR SUMMARY: 0 errors
";

    /// compute-sanitizer killed (or the process aborted) before it printed its summary.
    const CUT_SHORT: &str = "\
========= COMPUTE-SANITIZER
running 93 tests
test fill_matches_the_cpu_generator ... ok
";

    #[test]
    fn error_summaries() {
        assert_eq!(
            parse_summary("memcheck", MEMCHECK_CLEAN),
            Some(Summary { count: 0, text: "errors 0".into() })
        );
        assert_eq!(
            parse_summary("initcheck", MEMCHECK_THREE),
            Some(Summary { count: 3, text: "errors 3".into() })
        );
        assert_eq!(
            parse_summary("synccheck", "========= ERROR SUMMARY: 1 error\n").map(|s| s.count),
            Some(1)
        );
        // The last summary counts.
        let two = format!("{MEMCHECK_THREE}{MEMCHECK_CLEAN}");
        assert_eq!(parse_summary("memcheck", &two).map(|s| s.count), Some(0));
        assert_eq!(parse_summary("memcheck", "ERROR SUMMARY: many errors"), None);
        // Anywhere in a line, and a later malformed one does not hide an earlier match.
        let prefixed = "x ERROR SUMMARY: 2 errors\nERROR SUMMARY: some errors\n";
        assert_eq!(parse_summary("initcheck", prefixed).map(|s| s.count), Some(2));
    }

    #[test]
    fn racecheck_counts_hazards_with_warnings() {
        let summary = parse_summary("racecheck", RACECHECK_WARNINGS).expect("a summary");
        assert_eq!(summary.count, 3, "warnings are hazards: they fail the run");
        assert_eq!(summary.text, "hazards 3 (errors 0, warnings 3)");
        let one = "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)";
        assert_eq!(
            parse_summary("racecheck", one).map(|s| s.text),
            Some("hazards 1 (errors 1, warnings 0)".into())
        );
        assert_eq!(parse_summary("racecheck", RACECHECK_CLEAN).map(|s| s.count), Some(0));
        // racecheck is read from its own summary only.
        assert_eq!(parse_summary("racecheck", MEMCHECK_CLEAN), None);
    }

    #[test]
    fn missing_summary_is_a_failure() {
        assert_eq!(parse_summary("memcheck", CUT_SHORT), None);
        assert_eq!(parse_summary("racecheck", CUT_SHORT), None);
        let outcome = Outcome::from_log("memcheck", CUT_SHORT, 134, 3.0);
        assert!(!outcome.passed());
        assert_eq!(
            outcome.line("target/sanitize/memcheck.log"),
            "memcheck  FAIL no summary line; no test result line; exit 134; 3.0 s; log target/sanitize/memcheck.log"
        );
    }

    #[test]
    fn test_results() {
        assert_eq!(
            parse_test_result(MEMCHECK_CLEAN),
            Some(TestResult { ok: true, passed: 87, failed: 0, ignored: 5 })
        );
        assert_eq!(
            parse_test_result(MEMCHECK_THREE),
            Some(TestResult { ok: false, passed: 86, failed: 1, ignored: 5 })
        );
        assert_eq!(parse_test_result(CUT_SHORT), None);
    }

    #[test]
    fn verdicts_and_lines() {
        let clean = Outcome::from_log("memcheck", MEMCHECK_CLEAN, 0, 212.44);
        assert!(clean.passed());
        assert_eq!(
            clean.line("target/sanitize/memcheck.log"),
            "memcheck  ok   errors 0; tests ok: 87 passed, 0 failed, 5 ignored; exit 0; 212.4 s; log target/sanitize/memcheck.log"
        );
        let three = Outcome::from_log("memcheck", MEMCHECK_THREE, 1, 30.0);
        assert!(!three.passed());
        assert!(
            three.line("m.log").starts_with(
                "memcheck  FAIL errors 3; tests FAILED: 86 passed, 1 failed, 5 ignored; exit 1;"
            )
        );
        let races = Outcome::from_log("racecheck", RACECHECK_WARNINGS, 0, 801.0);
        assert!(!races.passed(), "hazard warnings fail the run");
        assert_eq!(
            races.line("r.log"),
            "racecheck FAIL hazards 3 (errors 0, warnings 3); tests ok: 87 passed, 0 failed, 5 ignored; exit 0; 801.0 s; log r.log"
        );
        assert!(Outcome::from_log("racecheck", RACECHECK_CLEAN, 0, 1.0).passed());
        // Every test ignored (no GPU) or filtered out: nothing was checked.
        assert!(!Outcome::from_log("memcheck", NOTHING_RAN, 0, 1.0).passed());
        // A clean summary does not hide a failed run.
        assert!(!Outcome::from_log("synccheck", MEMCHECK_CLEAN, 1, 1.0).passed());
    }
}

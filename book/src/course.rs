//! The course's structure, read from the host's families: a part per family and ladder, in
//! the order `FAMILIES` and `Family::ladders` give (the families of ladders before those of
//! probes, whose steps have no twin), and a chapter per source file of a
//! step, in ladder order. A GEMM step has a kernel per input type (`w01_wgmma_f16`,
//! `w01_wgmma_bf16`) but one file (`w01_wgmma.rs`): steps are grouped by their file.
//!
//! A step's file is the kernel file `kernels/src/<folder>/<file>.rs` whose name is the
//! step's id or starts it (`w01_wgmma` for `w01_wgmma_f16`), where the family's folder is
//! named as the family or its plural (`probe` → `probes/`). A step with no kernel (the node
//! probes m1–m3 launch library calls and other steps' kernels) is its host file,
//! `host/src/families/<family>/<idea>.rs`, the idea being the id after its number
//! (`m1_interconnect` → `interconnect.rs`).

use crate::header::{self, Header};
use crate::markdown::module_doc;
use crate::{Repo, Result};
use host::families::FAMILIES;
use host::families::family::{Family, Step};

/// A source file shown in the book.
#[derive(Clone, Debug)]
pub struct Source {
    /// Its path from the repository root.
    pub path: String,
    pub text: String,
}

/// One chapter: the steps of one source file.
#[derive(Clone, Debug)]
pub struct Chapter {
    /// The file's name without `.rs`: `w01_wgmma`, `m1_interconnect` (the step's id for a
    /// host file).
    pub name: String,
    /// The family's name (`gemm`).
    pub family: &'static str,
    /// The ladder's prefix (`t`).
    pub ladder: &'static str,
    /// The registered steps it holds, in ladder order.
    pub steps: Vec<Step>,
    /// The step's code: its kernel file, or its host file where it has no kernel.
    pub source: Source,
    /// Whether `source` is a kernel file (not a host file).
    pub is_kernel: bool,
    /// The C++ twin (`twins/<family>/<name>.cu`), where the step has one.
    pub twin: Option<Source>,
    /// The chapter of the step it builds on, whose diff it shows.
    pub builds_on: Option<String>,
    /// Its header card.
    pub header: Header,
    /// The book's page for it, from the book's root: `gemm/w01_wgmma.md`.
    pub page: String,
}

impl Chapter {
    /// The short id: the ladder and the number (`w01`, `m1`).
    pub fn short_id(&self) -> &str {
        let letters = self.ladder.len();
        let digits = self.name[letters..].chars().take_while(char::is_ascii_digit).count();
        &self.name[..letters + digits]
    }

    /// The ids of its kernels (its steps').
    pub fn ids(&self) -> Vec<&'static str> {
        self.steps.iter().map(|s| s.id).collect()
    }
}

/// One ladder of a family, as a part of the book.
#[derive(Clone, Debug)]
pub struct LadderPart {
    pub prefix: &'static str,
    pub title: String,
    pub chapters: Vec<Chapter>,
}

/// One family.
#[derive(Clone, Debug)]
pub struct FamilyPart {
    pub name: &'static str,
    pub title: &'static str,
    /// Its kernel folder's name under `kernels/src/` (`probes`): the book's folder too.
    pub folder: String,
    /// The doc of its kernel folder's `mod.rs`: the family's own introduction.
    pub overview: Option<Source>,
    pub ladders: Vec<LadderPart>,
    /// The machinery its later steps share, a module folder each (`gemm/hopper/`).
    pub shared: Vec<Shared>,
}

/// A module folder inside a family's kernel folder: machinery several steps call
/// (`kernels/src/gemm/hopper/`).
#[derive(Clone, Debug)]
pub struct Shared {
    /// The folder's name: the module's (`hopper`).
    pub name: String,
    /// Its `mod.rs` first, then its other files by name.
    pub files: Vec<Source>,
}

impl Shared {
    /// The module name of one of its files: `mainloop` for `…/hopper/mainloop.rs`, the
    /// folder's own for its `mod.rs`.
    pub fn module_of<'a>(&'a self, file: &'a Source) -> &'a str {
        let stem = file.path.rsplit('/').next().unwrap_or(&file.path).trim_end_matches(".rs");
        if stem == "mod" { &self.name } else { stem }
    }
}

impl FamilyPart {
    pub fn chapters(&self) -> impl Iterator<Item = &Chapter> {
        self.ladders.iter().flat_map(|l| l.chapters.iter())
    }
}

/// The whole course.
#[derive(Clone, Debug)]
pub struct Course {
    pub families: Vec<FamilyPart>,
}

impl Course {
    /// Reads the course from the host's `FAMILIES` and the sources.
    pub fn load(repo: &Repo) -> Result<Course> {
        let mut families =
            FAMILIES.iter().map(|&family| family_part(repo, family)).collect::<Result<Vec<_>>>()?;
        // Ladders first, in `FAMILIES` order; then the families of probes (steps with no C++
        // twin: experiments, not rungs).
        families.sort_by_key(|f| !f.chapters().any(|c| c.steps.iter().any(|s| s.twinned)));
        let course = Course { families };
        for chapter in course.chapters() {
            if let Some(base) = &chapter.builds_on
                && course.chapter(base).is_none()
            {
                return Err(format!(
                    "{} builds on `{base}`, which has no file among the registered steps; fix the \
                     step it builds on in the family's registry",
                    chapter.name
                ));
            }
        }
        Ok(course)
    }

    pub fn chapters(&self) -> impl Iterator<Item = &Chapter> {
        self.families.iter().flat_map(FamilyPart::chapters)
    }

    /// The chapter called `name` (`w06_setmaxnreg`).
    pub fn chapter(&self, name: &str) -> Option<&Chapter> {
        self.chapters().find(|c| c.name == name)
    }

    /// The chapter that holds the step `id`.
    pub fn chapter_of(&self, id: &str) -> Option<&Chapter> {
        self.chapters().find(|c| c.steps.iter().any(|s| s.id == id))
    }
}

/// The kernel folder of `family`: `kernels/src/<name>` or `kernels/src/<name>s`.
fn kernel_folder(repo: &Repo, family: &dyn Family) -> Result<String> {
    let name = family.name();
    [name.to_string(), format!("{name}s")]
        .into_iter()
        .find(|folder| repo.root.join("kernels/src").join(folder).is_dir())
        .ok_or_else(|| {
            format!(
                "family `{name}` has no kernel folder: neither kernels/src/{name}/ nor kernels/src/{name}s/ \
                 exists (docs/house.md, \"Adding a family\")"
            )
        })
}

/// The `.rs` files of a folder (not `mod.rs`), without the extension, sorted.
fn rust_files(repo: &Repo, folder: &str) -> Result<Vec<String>> {
    let dir = repo.root.join(folder);
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter_map(|name| name.strip_suffix(".rs").map(str::to_string))
        .filter(|name| name != "mod")
        .collect();
    names.sort();
    Ok(names)
}

/// The file of step `id` among `files`: the longest name that is the id or starts it
/// followed by `_`.
pub fn file_of<'a>(id: &str, files: &'a [String]) -> Option<&'a String> {
    files
        .iter()
        .filter(|f| id == f.as_str() || id.strip_prefix(f.as_str()).is_some_and(|rest| rest.starts_with('_')))
        .max_by_key(|f| f.len())
}

fn family_part(repo: &Repo, family: &'static dyn Family) -> Result<FamilyPart> {
    let folder = kernel_folder(repo, family)?;
    let kernel_dir = format!("kernels/src/{folder}");
    let files = rust_files(repo, &kernel_dir)?;
    let overview_path = format!("{kernel_dir}/mod.rs");
    let overview = repo
        .has(&overview_path)
        .then(|| repo.read(&overview_path).map(|text| Source { path: overview_path, text }));
    let overview = overview.transpose()?;

    // Steps grouped by their file, in ladder order.
    let mut chapters: Vec<Chapter> = vec![];
    for step in family.steps() {
        let (path, name, is_kernel) = match file_of(step.id, &files) {
            Some(file) => (format!("{kernel_dir}/{file}.rs"), file.clone(), true),
            None => {
                let idea = step.id[step.ladder().len()..].trim_start_matches(|c: char| c.is_ascii_digit());
                let host_file =
                    format!("host/src/families/{}/{}.rs", family.name(), idea.trim_start_matches('_'));
                if !repo.has(&host_file) {
                    return Err(format!(
                        "step `{}` of family `{}` has no source: no {kernel_dir}/<file>.rs whose name \
                         starts its id, and no {host_file}; add its kernel file (docs/house.md, \"Adding a step\")",
                        step.id,
                        family.name()
                    ));
                }
                (host_file, step.id.to_string(), false)
            }
        };
        if let Some(chapter) = chapters.iter_mut().find(|c| c.name == name) {
            chapter.steps.push(step);
            continue;
        }
        let text = repo.read(&path)?;
        let header = header::parse(&module_doc(&text)).unwrap_or_else(|| Header {
            kind: String::new(),
            id: String::new(),
            title: step.summary.to_string(),
            fields: vec![],
            prose: String::new(),
        });
        let twin =
            step.twin().map(|t| Source { path: format!("twins/{}", t.path), text: t.text.to_string() });
        let ladder = family
            .ladders()
            .iter()
            .map(|l| l.prefix)
            .find(|&p| p == step.ladder())
            .unwrap_or_else(|| step.ladder());
        chapters.push(Chapter {
            page: format!("{folder}/{name}.md"),
            name,
            family: family.name(),
            ladder,
            steps: vec![step],
            source: Source { path, text },
            is_kernel,
            twin,
            builds_on: None,
            header,
        });
    }
    for index in 0..chapters.len() {
        chapters[index].builds_on = builds_on(family.name(), &chapters, index);
    }

    // Ladders in the family's order; a step of a ladder the family does not declare gets
    // a part of its own after them rather than being left out.
    let mut ladders: Vec<LadderPart> = family
        .ladders()
        .iter()
        .map(|l| LadderPart { prefix: l.prefix, title: l.title.to_string(), chapters: vec![] })
        .collect();
    for chapter in chapters {
        match ladders.iter_mut().find(|l| l.prefix == chapter.ladder) {
            Some(ladder) => ladder.chapters.push(chapter),
            None => ladders.push(LadderPart {
                prefix: chapter.ladder,
                title: format!("the {} steps", chapter.ladder),
                chapters: vec![chapter],
            }),
        }
    }
    ladders.retain(|l| !l.chapters.is_empty());
    let shared = shared_modules(repo, &kernel_dir)?;
    Ok(FamilyPart { name: family.name(), title: family.title(), folder, overview, ladders, shared })
}

/// The module folders of a family's kernel folder, by name.
fn shared_modules(repo: &Repo, kernel_dir: &str) -> Result<Vec<Shared>> {
    let dir = repo.root.join(kernel_dir);
    let mut folders: Vec<String> = std::fs::read_dir(&dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .filter_map(|entry| entry.ok())
        .filter(|entry| entry.path().is_dir())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    folders.sort();
    folders
        .into_iter()
        .map(|name| {
            let folder = format!("{kernel_dir}/{name}");
            let mut stems = rust_files(repo, &folder)?;
            if repo.has(&format!("{folder}/mod.rs")) {
                stems.insert(0, "mod".into());
            }
            let files = stems
                .iter()
                .map(|stem| {
                    let path = format!("{folder}/{stem}.rs");
                    repo.read(&path).map(|text| Source { path, text })
                })
                .collect::<Result<Vec<_>>>()?;
            Ok(Shared { name, files })
        })
        .collect()
}

/// The chapter that chapter `index` builds on: for GEMM the registry's `builds_on`; for
/// the reduction the step before it in its article's ladder (the project's x steps
/// continue “Making vector sum really fast”, so x1 builds on v4); none for probes; for a
/// family yet to come, the chapter before it in its ladder.
fn builds_on(family: &str, chapters: &[Chapter], index: usize) -> Option<String> {
    let chapter = &chapters[index];
    match family {
        "gemm" => host::families::gemm::registry::GEMM_STEPS
            .iter()
            .find(|s| s.name == chapter.name)
            .and_then(|s| s.builds_on)
            .map(str::to_string),
        "reduce" => {
            use host::families::reduce::registry::REDUCE_KERNELS;
            let id = chapter.steps.first()?.id;
            let at = REDUCE_KERNELS.iter().position(|k| k.id == id)?;
            let previous =
                REDUCE_KERNELS[..at].iter().rev().find(|k| k.ladder == REDUCE_KERNELS[at].ladder)?;
            chapters.iter().find(|c| c.steps.iter().any(|s| s.id == previous.id)).map(|c| c.name.clone())
        }
        "probe" => None,
        _ => chapters[..index].iter().rev().find(|c| c.ladder == chapter.ladder).map(|c| c.name.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_of_steps() {
        let files: Vec<String> =
            ["w01_wgmma", "w01_wgmma_extra", "x4_packed_tally", "t1"].map(String::from).into();
        assert_eq!(file_of("w01_wgmma_f16", &files).map(String::as_str), Some("w01_wgmma"));
        assert_eq!(file_of("w01_wgmma_extra_bf16", &files).map(String::as_str), Some("w01_wgmma_extra"));
        assert_eq!(file_of("x4_packed_tally", &files).map(String::as_str), Some("x4_packed_tally"));
        assert_eq!(file_of("w06_setmaxnreg_f16", &files), None);
        assert_eq!(file_of("m1_interconnect", &files), None);
    }
}

//! The device library (`kernels/src/device/*.rs`) read for the book's appendix: each
//! module's doc, and each public wrapper with its signature and its doc comment, which
//! names the PTX instruction it emits.
//!
//! Some wrappers are written once as a `macro_rules!` template and stamped out per type
//! (`mma_m16n8k16!(mma_m16n8k16_f16, "f16")`), their doc built with `concat!` from the
//! macro's arguments. Those are expanded here: each invocation at the top of a module gives
//! a wrapper of its own, with the arguments put into its doc and signature, through macros
//! that hand their arguments on to other macros too. The reading is a small lexer (strings,
//! characters and comments blanked, braces counted), not a Rust parser: it knows the shapes
//! the device library uses and says nothing of any other.

use crate::markdown::{heading_id, module_doc};
use crate::{Repo, Result};
use std::collections::BTreeMap;

/// Where the device library lives, from the repository root.
pub const DEVICE_DIR: &str = "kernels/src/device";

/// What kind of item a wrapper is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Function,
    /// A function of an `impl` block (`SharedArray<i32>::load`).
    Method,
    Constant,
    Type,
    /// An exported macro (`static_shared!`).
    Macro,
}

/// One public item of a module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    /// Its name: `shuffle_down_i32`, `SharedArray<i32>::load`, `static_shared!`.
    pub name: String,
    pub kind: Kind,
    /// The declaration up to its body, as written (arguments of a template put in).
    pub signature: String,
    /// Its doc comment, Markdown.
    pub doc: String,
    /// The macro that stamped it out, for a wrapper written as a template.
    pub generated_by: Option<String>,
}

impl Item {
    /// The heading id of its section on its module's page.
    pub fn anchor(&self) -> String {
        heading_id(&self.name)
    }
}

/// One file of the device library.
#[derive(Clone, Debug)]
pub struct Module {
    /// The module's name (`warp`).
    pub name: String,
    /// Its file from the repository root.
    pub path: String,
    /// Its module doc, Markdown.
    pub doc: String,
    pub items: Vec<Item>,
}

/// The whole device library.
#[derive(Clone, Debug)]
pub struct Library {
    /// The doc of `device/mod.rs`: the library's introduction.
    pub intro: String,
    pub modules: Vec<Module>,
}

impl Library {
    /// Reads every module of `kernels/src/device/`, in file-name order.
    pub fn load(repo: &Repo) -> Result<Library> {
        let dir = repo.root.join(DEVICE_DIR);
        let intro = module_doc(&repo.read(&format!("{DEVICE_DIR}/mod.rs"))?);
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
            .filter_map(|entry| entry.ok())
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .filter(|name| name.ends_with(".rs") && name != "mod.rs")
            .collect();
        names.sort();
        let modules = names
            .iter()
            .map(|file| {
                let path = format!("{DEVICE_DIR}/{file}");
                let text = repo.read(&path)?;
                Ok(Module {
                    name: file.trim_end_matches(".rs").to_string(),
                    doc: module_doc(&text),
                    items: items(&text),
                    path,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Library { intro, modules })
    }

    /// The wrappers a chapter's code can link to: free functions, constants, types and
    /// macros whose name no other module uses, each with its module.
    pub fn link_targets(&self) -> BTreeMap<String, (String, String)> {
        let mut seen: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
        for module in &self.modules {
            for item in module.items.iter().filter(|i| i.kind != Kind::Method) {
                let name = item.name.trim_end_matches('!').to_string();
                seen.entry(name).or_default().push((module.name.clone(), item.anchor()));
            }
        }
        seen.into_iter()
            .filter(|(_, places)| places.len() == 1)
            .map(|(name, mut p)| (name, p.remove(0)))
            .collect()
    }
}

/// One line of source with its code alone: string and character contents and comments
/// blanked to spaces (byte for byte, so positions match the raw line), and the brace depth
/// at its start.
struct Line<'a> {
    raw: &'a str,
    code: String,
    depth: usize,
}

/// Lexes `text` into [`Line`]s.
fn lex(text: &str) -> Vec<Line<'_>> {
    #[derive(PartialEq)]
    enum State {
        Code,
        Str,
        /// A raw string closed by `"` and this many `#`.
        RawStr(usize),
        BlockComment,
    }
    let mut state = State::Code;
    let mut depth = 0usize;
    let mut out = vec![];
    for raw in text.lines() {
        let start_depth = depth;
        let bytes = raw.as_bytes();
        let mut code = String::with_capacity(raw.len());
        let blank = |code: &mut String, c: char| code.push_str(&" ".repeat(c.len_utf8()));
        let mut chars = raw.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            match state {
                State::Str => {
                    if c == '\\' {
                        blank(&mut code, c);
                        if let Some((_, next)) = chars.next() {
                            blank(&mut code, next);
                        }
                    } else if c == '"' {
                        code.push('"');
                        state = State::Code;
                    } else {
                        blank(&mut code, c);
                    }
                }
                State::RawStr(hashes) => {
                    let closes = c == '"'
                        && bytes.get(i + 1..i + 1 + hashes).is_some_and(|h| h.iter().all(|&b| b == b'#'));
                    if closes {
                        code.push('"');
                        for _ in 0..hashes {
                            chars.next();
                            code.push(' ');
                        }
                        state = State::Code;
                    } else {
                        blank(&mut code, c);
                    }
                }
                State::BlockComment => {
                    if c == '*' && bytes.get(i + 1) == Some(&b'/') {
                        chars.next();
                        code.push_str("  ");
                        state = State::Code;
                    } else {
                        blank(&mut code, c);
                    }
                }
                State::Code => match c {
                    '/' if bytes.get(i + 1) == Some(&b'/') => {
                        code.push_str(&" ".repeat(raw.len() - i));
                        break;
                    }
                    '/' if bytes.get(i + 1) == Some(&b'*') => {
                        chars.next();
                        code.push_str("  ");
                        state = State::BlockComment;
                    }
                    '"' => {
                        code.push('"');
                        state = State::Str;
                    }
                    'r' if matches!(bytes.get(i + 1), Some(b'"' | b'#'))
                        && !raw[..i].ends_with(|p: char| p.is_alphanumeric() || p == '_') =>
                    {
                        let hashes = bytes[i + 1..].iter().take_while(|&&b| b == b'#').count();
                        if bytes.get(i + 1 + hashes) == Some(&b'"') {
                            code.push('r');
                            for _ in 0..=hashes {
                                chars.next();
                                code.push(' ');
                            }
                            state = State::RawStr(hashes);
                        } else {
                            code.push(c);
                        }
                    }
                    '\'' => {
                        // A character literal ('x', '\n', '{'), not a lifetime ('a).
                        let rest = &raw[i + 1..];
                        let literal_len = if let Some(escaped) = rest.strip_prefix('\\') {
                            escaped.find('\'').map(|end| end + 2)
                        } else {
                            rest.chars()
                                .next()
                                .filter(|_| rest.chars().nth(1) == Some('\''))
                                .map(char::len_utf8)
                        };
                        match literal_len {
                            Some(len) => {
                                code.push('\'');
                                for _ in 0..rest[..len].chars().count() {
                                    let (_, skipped) = chars.next().expect("inside the literal");
                                    blank(&mut code, skipped);
                                }
                                chars.next();
                                code.push('\'');
                            }
                            None => code.push(c),
                        }
                    }
                    '{' => {
                        depth += 1;
                        code.push(c);
                    }
                    '}' => {
                        depth = depth.saturating_sub(1);
                        code.push(c);
                    }
                    _ => code.push(c),
                },
            }
        }
        out.push(Line { raw, code, depth: start_depth });
    }
    out
}

/// `text` with its comments, strings and characters blanked: what the compiler reads as
/// code, line for line.
pub fn code_only(text: &str) -> String {
    lex(text).iter().map(|line| line.code.as_str()).collect::<Vec<_>>().join("\n")
}

/// A doc line waiting for its item: `///` text, or a `#[doc = …]` attribute still to be
/// evaluated (it may name a template's arguments).
#[derive(Clone, Debug)]
enum DocLine {
    Text(String),
    Attr(String),
}

/// An item found in the source, before templates are expanded.
#[derive(Clone, Debug)]
struct Found {
    name: String,
    kind: Kind,
    owner: Option<String>,
    signature: String,
    doc: Vec<DocLine>,
}

/// A `macro_rules!` of the module: its parameters (first arm), the items its body
/// declares, and the macros its body invokes with its own arguments.
#[derive(Clone, Debug, Default)]
struct Template {
    params: Vec<String>,
    items: Vec<Found>,
    delegations: Vec<(String, String)>,
}

/// What encloses a line.
#[derive(Clone, Debug)]
enum Scope {
    Impl(String),
    Macro(String),
    Body,
}

/// The public items of one module's source, in file order; templates expanded at their
/// invocations.
pub fn items(text: &str) -> Vec<Item> {
    let lines = lex(text);
    let mut scopes: Vec<(usize, Scope)> = vec![];
    let mut templates: BTreeMap<String, Template> = BTreeMap::new();
    let mut plain: Vec<(usize, Item)> = vec![];
    let mut invocations: Vec<(usize, String, String)> = vec![];
    let mut doc: Vec<DocLine> = vec![];
    let mut exported = false;
    let mut index = 0;
    while index < lines.len() {
        let line = &lines[index];
        while scopes.last().is_some_and(|&(depth, _)| line.depth < depth) {
            scopes.pop();
        }
        let code = line.code.trim();
        let raw = line.raw.trim();
        let in_body = scopes.iter().any(|(_, s)| matches!(s, Scope::Body));
        let in_macro = scopes.iter().rev().find_map(|(_, s)| match s {
            Scope::Macro(name) => Some(name.clone()),
            _ => None,
        });
        let owner = scopes.iter().rev().find_map(|(_, s)| match s {
            Scope::Impl(name) => Some(name.clone()),
            _ => None,
        });
        let mut next = index + 1;
        if let Some(text) = raw.strip_prefix("///") {
            doc.push(DocLine::Text(text.strip_prefix(' ').unwrap_or(text).to_string()));
        } else if raw.starts_with("#[doc") {
            doc.push(DocLine::Attr(raw.to_string()));
        } else if raw.starts_with("#[") || raw.starts_with("#![") {
            exported |= raw.starts_with("#[macro_export]");
        } else if in_body {
            doc.clear();
        } else if let Some(name) = code.strip_prefix("macro_rules!").map(|r| identifier(r.trim_start())) {
            if exported {
                let found = Found {
                    name: format!("{name}!"),
                    kind: Kind::Macro,
                    owner: None,
                    signature: format!("macro_rules! {name}"),
                    doc: std::mem::take(&mut doc),
                };
                plain.push((index, resolve(&found, &BTreeMap::new(), None)));
            }
            templates.entry(name.to_string()).or_default();
            scopes.push((line.depth + 1, Scope::Macro(name.to_string())));
            doc.clear();
            exported = false;
        } else if let Some((kind, name)) = declaration(code) {
            let (signature, end) = signature(&lines, index);
            let kind = if owner.is_some() && kind == Kind::Function { Kind::Method } else { kind };
            let found = Found { name, kind, owner: owner.clone(), signature, doc: std::mem::take(&mut doc) };
            match &in_macro {
                Some(m) => templates.entry(m.clone()).or_default().items.push(found),
                None => plain.push((index, resolve(&found, &BTreeMap::new(), None))),
            }
            if lines[end].code.contains('{') {
                scopes.push((lines[end].depth + 1, Scope::Body));
            }
            next = end + 1;
            exported = false;
        } else {
            doc.clear();
            exported = false;
            let arm = in_macro.is_some() && code.starts_with('(') && code.contains("=>");
            if let (true, Some(m)) = (arm, &in_macro) {
                // A macro's arm: its first gives the parameters; its body is the template.
                let template = templates.entry(m.clone()).or_default();
                if template.params.is_empty() {
                    template.params = params(raw);
                }
            } else if let Some((target, args, end)) = invocation(&lines, index) {
                match &in_macro {
                    Some(m) => templates.entry(m.clone()).or_default().delegations.push((target, args)),
                    None if scopes.is_empty() => invocations.push((index, target, args)),
                    None => {}
                }
                next = end + 1;
            } else if code.starts_with("impl") && code.ends_with('{') {
                scopes.push((line.depth + 1, Scope::Impl(impl_type(raw))));
            } else if code.ends_with('{') {
                scopes.push((line.depth + 1, Scope::Body));
            }
        }
        // Braces opened and closed on lines the branches above skip are counted by the
        // lexer's depths; scopes close when a later line starts shallower.
        index = next;
    }
    let mut all = plain;
    for (line, target, args) in invocations {
        for item in expand(&templates, &target, &args, 0) {
            all.push((line, item));
        }
    }
    all.sort_by_key(|(line, _)| *line);
    all.into_iter().map(|(_, item)| item).collect()
}

/// The identifier at the start of `text`.
fn identifier(text: &str) -> &str {
    let end = text.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$')).unwrap_or(text.len());
    &text[..end]
}

/// A public declaration's kind and name, from its line of code.
fn declaration(code: &str) -> Option<(Kind, String)> {
    let rest = code.strip_prefix("pub ")?;
    let rest = rest.trim_start();
    let words: Vec<&str> = rest.split_whitespace().collect();
    let fn_at = words.iter().position(|w| *w == "fn" || w.starts_with("fn "));
    if let Some(at) = fn_at
        && words[..at].iter().all(|w| matches!(*w, "const" | "unsafe" | "extern" | "\"C\"" | "async"))
    {
        let after = rest.split_once("fn ")?.1;
        return Some((Kind::Function, identifier(after.trim_start()).to_string()));
    }
    let kinds = [
        ("const ", Kind::Constant),
        ("static ", Kind::Constant),
        ("struct ", Kind::Type),
        ("enum ", Kind::Type),
        ("type ", Kind::Type),
    ];
    let (kind, after) =
        kinds.iter().find_map(|&(word, kind)| rest.strip_prefix(word).map(|after| (kind, after)))?;
    let name = identifier(after.trim_start());
    (!name.is_empty()).then(|| (kind, name.to_string()))
}

/// A declaration's lines up to its body (`{`) or its end (`;`), and the index of the
/// line it ends on.
fn signature(lines: &[Line], start: usize) -> (String, usize) {
    let indent = lines[start].raw.len() - lines[start].raw.trim_start().len();
    let mut text = vec![];
    // Parentheses, brackets and angle brackets open: `;` in `[f32; 4]` ends nothing.
    let mut nesting = 0i32;
    for (i, line) in lines.iter().enumerate().skip(start).take(MAX_SIGNATURE_LINES) {
        let mut end = None;
        for (at, c) in line.code.char_indices() {
            match c {
                '(' | '[' | '<' => nesting += 1,
                ')' | ']' => nesting -= 1,
                '>' if !line.code[..at].ends_with('-') => nesting -= 1,
                '{' | ';' if nesting <= 0 => {
                    end = Some(at);
                    break;
                }
                _ => {}
            }
        }
        // The lexer copies code characters byte for byte: `at` is a boundary in `raw` too.
        if let Some(at) = end {
            text.push(dedent(line.raw[..at].trim_end(), indent));
            return (text.join("\n").trim_end().to_string(), i);
        }
        text.push(dedent(line.raw.trim_end(), indent));
    }
    (text.join("\n"), start + text.len().saturating_sub(1))
}

/// The most lines a declaration's signature is read over.
const MAX_SIGNATURE_LINES: usize = 16;

/// `line` without up to `indent` leading spaces.
fn dedent(line: &str, indent: usize) -> String {
    let spaces = line.len() - line.trim_start().len();
    line[spaces.min(indent)..].to_string()
}

/// A macro invocation that starts on line `start` (`name!(…)` or `name! {…}`, not a
/// `macro_rules!` and not `asm!`): its name, the text between its delimiters, and the line
/// it ends on.
fn invocation(lines: &[Line], start: usize) -> Option<(String, String, usize)> {
    let code = lines[start].code.trim_start();
    let name = identifier(code);
    let after = code[name.len()..].strip_prefix('!')?;
    let open = after.trim_start().chars().next()?;
    if name.is_empty() || name.starts_with('$') || !"([{".contains(open) {
        return None;
    }
    if matches!(name, "asm" | "global_asm" | "macro_rules" | "concat" | "assert" | "debug_assert" | "panic") {
        return None;
    }
    let close = match open {
        '(' => ')',
        '[' => ']',
        _ => '}',
    };
    let mut depth = 0i32;
    let mut text = String::new();
    for (i, line) in lines.iter().enumerate().skip(start) {
        let offset = if i == start { line.code.find(&format!("{name}!"))? } else { 0 };
        for (at, c) in line.raw[offset..].char_indices() {
            // What the lexer kept of this character: itself in code, a space in a string.
            let structural = line.code.as_bytes()[offset + at];
            if structural == open as u8 {
                depth += 1;
                if depth == 1 {
                    continue;
                }
            } else if structural == close as u8 {
                depth -= 1;
                if depth == 0 {
                    return Some((name.to_string(), text, i));
                }
            }
            if depth >= 1 {
                text.push(c);
            }
        }
        text.push('\n');
    }
    None
}

/// The type an `impl` line is for: `impl SharedArray<$elem> {` → `SharedArray<$elem>`.
fn impl_type(line: &str) -> String {
    let rest = line.trim_start_matches("impl").trim();
    let rest = if rest.starts_with('<') {
        // `impl<T> X<T>`: skip the generics.
        let mut depth = 0;
        let end = rest
            .char_indices()
            .find(|&(_, c)| {
                depth += match c {
                    '<' => 1,
                    '>' => -1,
                    _ => 0,
                };
                depth == 0
            })
            .map_or(0, |(i, _)| i + 1);
        rest[end..].trim()
    } else {
        rest
    };
    let rest = rest.split(" for ").last().unwrap_or(rest);
    rest.trim_end_matches('{').split(" where").next().unwrap_or(rest).trim().to_string()
}

/// A macro arm's parameters (`($name:ident, $ty:literal) => {` → `name`, `ty`), up to the
/// first repetition.
fn params(line: &str) -> Vec<String> {
    let pattern = line.split("=>").next().unwrap_or(line);
    let pattern = pattern.split("$(").next().unwrap_or(pattern);
    pattern
        .split('$')
        .skip(1)
        .filter_map(|p| p.split_once(':').map(|(name, _)| name.trim().to_string()))
        .filter(|name| !name.is_empty())
        .collect()
}

/// Splits a macro call's arguments on its top-level commas.
fn split_args(args: &str) -> Vec<String> {
    let mut out = vec![];
    let mut current = String::new();
    let mut depth = 0i32;
    let mut in_string = false;
    let mut escaped = false;
    for c in args.chars() {
        if in_string {
            current.push(c);
            match (escaped, c) {
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => escaped = false,
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '(' | '[' | '{' | '<' => depth += 1,
            ')' | ']' | '}' | '>' => depth -= 1,
            ',' if depth == 0 => {
                out.push(current.trim().to_string());
                current.clear();
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    if !current.trim().is_empty() {
        out.push(current.trim().to_string());
    }
    out
}

/// `text` with each `$param` replaced by its argument; `quoted` keeps a string literal's
/// quotes (inside `concat!`), otherwise they go.
fn substitute(text: &str, bindings: &BTreeMap<String, String>, quoted: bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let name = identifier(&rest[at + 1..]);
        match bindings.get(name) {
            Some(value) if !name.is_empty() => {
                let value = if quoted { value.as_str() } else { value.trim_matches('"') };
                out.push_str(value);
                rest = &rest[at + 1 + name.len()..];
            }
            _ => {
                out.push('$');
                rest = &rest[at + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The text of a `#[doc = …]` attribute: its string literals joined (`concat!`), anything
/// else (an argument no invocation filled) as written.
fn doc_attribute(attr: &str) -> String {
    let value = attr.trim().trim_start_matches("#[doc").trim_start().trim_start_matches('=').trim();
    let value = value.trim_end_matches(']').trim();
    let inner = value.strip_prefix("concat!(").and_then(|v| v.strip_suffix(')')).unwrap_or(value);
    split_args(inner)
        .iter()
        .map(|part| match part.strip_prefix('"').and_then(|p| p.strip_suffix('"')) {
            Some(literal) => literal.replace("\\\"", "\"").replace("\\\\", "\\"),
            None => part.clone(),
        })
        .collect()
}

/// A found item made an [`Item`], its template's arguments put in.
fn resolve(found: &Found, bindings: &BTreeMap<String, String>, generated_by: Option<&str>) -> Item {
    let doc = found
        .doc
        .iter()
        .map(|line| match line {
            DocLine::Text(text) => substitute(text, bindings, false),
            DocLine::Attr(attr) => doc_attribute(&substitute(attr, bindings, true)),
        })
        .collect::<Vec<_>>()
        .join("\n");
    let name = substitute(&found.name, bindings, false);
    let name = match &found.owner {
        Some(owner) if found.kind == Kind::Method => {
            format!("{}::{name}", substitute(owner, bindings, false))
        }
        _ => name,
    };
    Item {
        name,
        kind: found.kind,
        signature: substitute(&found.signature, bindings, false),
        doc,
        generated_by: generated_by.map(|m| format!("{m}!")),
    }
}

/// The items an invocation of `macro_name` with `args` stamps out, through the macros it
/// hands its arguments to.
fn expand(templates: &BTreeMap<String, Template>, macro_name: &str, args: &str, depth: usize) -> Vec<Item> {
    let Some(template) = templates.get(macro_name) else { return vec![] };
    if depth > 8 {
        return vec![];
    }
    let bindings: BTreeMap<String, String> = template.params.iter().cloned().zip(split_args(args)).collect();
    let mut out: Vec<Item> = template.items.iter().map(|f| resolve(f, &bindings, Some(macro_name))).collect();
    for (target, inner) in &template.delegations {
        let inner = substitute(inner, &bindings, true);
        let mut items = expand(templates, target, &inner, depth + 1);
        for item in &mut items {
            item.generated_by = Some(format!("{macro_name}!"));
        }
        out.extend(items);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = r##"//! A module.

use core::arch::asm;

/// `shfl.sync.down.b32 d, v, delta, 0x1f, mask;` returns `v`
/// from lane `lane + delta`.
#[inline(always)]
pub fn shuffle_down_i32(mask: u32, value: i32, delta: u32) -> i32 {
    let out: i32;
    unsafe { asm!("shfl.sync.down.b32 {o}, {v}, {d}, 0x1f, {m};", o = out(reg32) out) };
    let brace = '{';
    out
}

fn private() {}

/// Registers per thread.
pub const M64N256_ACC: usize = 128;

macro_rules! wgmma_f32 {
    ($name:ident, $shape:literal, $acc:expr, $ty:literal, $first:literal $($i:literal)*) => {
        #[doc = concat!("`wgmma.mma_async.sync.aligned.", $shape, ".f32.", $ty, ".", $ty, "`: `acc += A · B`")]
        /// for the warpgroup.
        #[inline(always)]
        pub unsafe fn $name(acc: &mut [f32; $acc], a: u64, b: u64) {
            unsafe { asm!(concat!("{{ wgmma ", $shape, " }}")) }
        }
    };
}

macro_rules! m64n256k16 {
    ($name:ident, $ty:literal) => {
        wgmma_f32!($name, "m64n256k16", M64N256_ACC, $ty,
            0 1 2 3);
    };
}

m64n256k16!(mma_m64n256k16_f16, "f16");
m64n256k16!(mma_m64n256k16_bf16, "bf16");

/// A shared array.
pub struct SharedArray<T> {
    base: u32,
}

impl<T> SharedArray<T> {
    /// Its address.
    pub fn address(self, index: u32) -> u32 {
        self.base + index
    }
}

macro_rules! shared_access {
    ($elem:ty, $ptx:literal, $class:ident) => {
        impl SharedArray<$elem> {
            #[doc = concat!("`ld.shared.", $ptx, " %r, [addr];` reads element `index`.")]
            pub unsafe fn load(self, index: u32) -> $elem {
                todo!()
            }
        }
    };
}

shared_access!(i32, "s32", reg32);

/// Declares a static shared array:
///
/// ```ignore
/// static_shared! { fn sums() -> [i32; 32]; }
/// ```
#[macro_export]
macro_rules! static_shared {
    ($name:ident) => { core::arch::global_asm!("{{}}"); };
}
"##;

    #[test]
    fn plain_items_templates_and_macros() {
        let items = items(SOURCE);
        let names: Vec<&str> = items.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "shuffle_down_i32",
                "M64N256_ACC",
                "mma_m64n256k16_f16",
                "mma_m64n256k16_bf16",
                "SharedArray",
                "SharedArray<T>::address",
                "SharedArray<i32>::load",
                "static_shared!",
            ]
        );
        assert_eq!(
            items[0].doc,
            "`shfl.sync.down.b32 d, v, delta, 0x1f, mask;` returns `v`\nfrom lane `lane + delta`."
        );
        assert_eq!(items[0].signature, "pub fn shuffle_down_i32(mask: u32, value: i32, delta: u32) -> i32");
        assert_eq!(items[1].signature, "pub const M64N256_ACC: usize = 128");
        assert_eq!(
            items[2].doc,
            "`wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16`: `acc += A · B`\nfor the warpgroup."
        );
        assert_eq!(
            items[2].signature,
            "pub unsafe fn mma_m64n256k16_f16(acc: &mut [f32; M64N256_ACC], a: u64, b: u64)"
        );
        assert_eq!(items[2].generated_by.as_deref(), Some("m64n256k16!"));
        assert_eq!(
            items[3].doc.lines().next(),
            Some("`wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16`: `acc += A · B`")
        );
        assert_eq!(items[5].kind, Kind::Method);
        assert_eq!(items[6].doc, "`ld.shared.s32 %r, [addr];` reads element `index`.");
        assert_eq!(items[6].signature, "pub unsafe fn load(self, index: u32) -> i32");
        assert_eq!(items[7].kind, Kind::Macro);
        assert!(items[7].doc.contains("```ignore"));
    }

    #[test]
    fn the_lexer_blanks_strings_characters_and_comments() {
        let lines = lex("let a = \"{{\"; // {\nlet b = '{'; let c: &'a str = r#\"}\"#;\n{\n}\n");
        assert_eq!(lines[0].code.len(), lines[0].raw.len());
        assert!(!lines[0].code.contains('{'));
        assert!(!lines[1].code.contains(['{', '}']));
        assert_eq!(lines[2].depth, 0);
        assert_eq!(lines[3].depth, 1);
    }

    #[test]
    fn arguments_and_parameters() {
        assert_eq!(
            split_args("$name, \"m64, n\", X<A, B>, 0 1 2"),
            ["$name", "\"m64, n\"", "X<A, B>", "0 1 2"]
        );
        assert_eq!(
            params("($name:ident, $ty:literal, $first:literal $($i:literal)*) => {"),
            ["name", "ty", "first"]
        );
        assert_eq!(impl_type("impl<T> SharedArray<T> {"), "SharedArray<T>");
    }
}

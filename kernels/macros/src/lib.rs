//! `#[kernel]`: marks a function as a GPU entry point.
//!
//! ```ignore
//! #[kernel]
//! pub unsafe fn reduce0(input: *const i32, partials: *mut i32, n: usize) { … }
//! ```
//! becomes
//! ```ignore
//! #[unsafe(no_mangle)]
//! pub unsafe extern "ptx-kernel" fn reduce0(input: *const i32, partials: *mut i32, n: usize) { … }
//! ```
//! that is, a `.entry reduce0` in the PTX, found by the host under its Rust name.
//!
//! `#[kernel(max_threads = EXPR)]` also promises that the kernel is never launched with
//! more than `EXPR` threads per block (CUDA's `__launch_bounds__(EXPR)`): it writes the line
//! `// ptx-link: maxntid NAME EXPR` into the PTX module (`global_asm!`), and the link step
//! turns it into the entry's `.maxntid EXPR, 1, 1` directive, from which ptxas caps the
//! registers per thread so that one such block fits on an SM. rustc has no way to say this
//! itself.
//!
//! Written on `proc_macro` alone (no `syn`): the change is two token insertions, and the
//! kernels crate builds with `-Zbuild-std`, where every dependency costs build time.

use proc_macro::{Delimiter, Group, Ident, Literal, Punct, Spacing, Span, TokenStream, TokenTree};

#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    let max_threads = match parse_max_threads(attr) {
        Ok(bound) => bound,
        Err(message) => return compile_error(&message),
    };
    let tokens: Vec<TokenTree> = item.into_iter().collect();
    let Some(fn_at) = tokens.iter().position(|t| matches!(t, TokenTree::Ident(i) if i.to_string() == "fn"))
    else {
        return compile_error("#[kernel] goes on a function");
    };
    let has_abi =
        tokens[..fn_at].iter().any(|t| matches!(t, TokenTree::Ident(i) if i.to_string() == "extern"));
    if has_abi {
        return compile_error("#[kernel] adds `extern \"ptx-kernel\"` itself: leave the ABI out");
    }
    let generic = matches!(tokens.get(fn_at + 2), Some(TokenTree::Punct(p)) if p.as_char() == '<');
    if generic {
        // An entry point needs one unmangled name: write a thin #[kernel] per instantiation
        // around a generic `fn` instead.
        return compile_error("#[kernel] functions cannot be generic: wrap one instantiation");
    }

    let mut out: Vec<TokenTree> = Vec::with_capacity(tokens.len() + 8);
    // #[unsafe(no_mangle)]
    out.push(Punct::new('#', Spacing::Alone).into());
    let no_mangle: TokenStream = [
        TokenTree::from(Ident::new("unsafe", Span::call_site())),
        Group::new(
            Delimiter::Parenthesis,
            TokenStream::from(TokenTree::from(Ident::new("no_mangle", Span::call_site()))),
        )
        .into(),
    ]
    .into_iter()
    .collect();
    out.push(Group::new(Delimiter::Bracket, no_mangle).into());
    let name = tokens.get(fn_at + 1).map(|t| t.to_string()).unwrap_or_default();
    for (i, t) in tokens.into_iter().enumerate() {
        if i == fn_at {
            out.push(Ident::new("extern", Span::call_site()).into());
            out.push(Literal::string("ptx-kernel").into());
        }
        out.push(t);
    }
    let mut stream: TokenStream = out.into_iter().collect();
    if let Some(bound) = max_threads {
        let marker =
            format!("::core::arch::global_asm!(\"// ptx-link: maxntid {name} {{}}\", const {bound});");
        stream.extend(marker.parse::<TokenStream>().expect("a global_asm! invocation"));
    }
    stream
}

/// The `EXPR` of `max_threads = EXPR`, as source text; `None` for no arguments.
fn parse_max_threads(attr: TokenStream) -> Result<Option<String>, String> {
    let tokens: Vec<TokenTree> = attr.into_iter().collect();
    match tokens.as_slice() {
        [] => Ok(None),
        [TokenTree::Ident(key), TokenTree::Punct(eq), rest @ ..]
            if key.to_string() == "max_threads" && eq.as_char() == '=' && !rest.is_empty() =>
        {
            Ok(Some(rest.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(" ")))
        }
        _ => Err("#[kernel] takes no arguments, or `max_threads = EXPR`".into()),
    }
}

fn compile_error(message: &str) -> TokenStream {
    format!("compile_error!({message:?});").parse().unwrap()
}

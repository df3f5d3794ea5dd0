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
//! Written on `proc_macro` alone (no `syn`): the change is two token insertions, and the
//! kernels crate builds with `-Zbuild-std`, where every dependency costs build time.

use proc_macro::{Delimiter, Group, Ident, Literal, Punct, Spacing, Span, TokenStream, TokenTree};

#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    if !attr.is_empty() {
        return compile_error("#[kernel] takes no arguments");
    }
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
    for (i, t) in tokens.into_iter().enumerate() {
        if i == fn_at {
            out.push(Ident::new("extern", Span::call_site()).into());
            out.push(Literal::string("ptx-kernel").into());
        }
        out.push(t);
    }
    out.into_iter().collect()
}

fn compile_error(message: &str) -> TokenStream {
    format!("compile_error!({message:?});").parse().unwrap()
}

//! Collects errors so that every problem in one `#[tool]` is reported at once.

use std::fmt::Display;

use quote::ToTokens;

#[derive(Default)]
pub struct Ctxt {
    errors: Vec<syn::Error>,
}

impl Ctxt {
    /// Records an error spanned on `tokens`.
    pub fn error_spanned_by(&mut self, tokens: impl ToTokens, message: impl Display) {
        self.errors.push(syn::Error::new_spanned(tokens, message));
    }

    /// Records an error at `span`.
    pub fn error_at(&mut self, span: proc_macro2::Span, message: impl Display) {
        self.errors.push(syn::Error::new(span, message));
    }

    /// Records a parse error.
    pub fn syn_error(&mut self, error: syn::Error) {
        self.errors.push(error);
    }

    /// All errors combined into one, if there were any.
    pub fn check(self) -> Result<(), syn::Error> {
        let mut errors = self.errors.into_iter();
        let Some(mut combined) = errors.next() else {
            return Ok(());
        };
        for e in errors {
            combined.combine(e);
        }
        Err(combined)
    }
}

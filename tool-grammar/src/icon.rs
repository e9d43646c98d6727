//! The icon rule: what the parts of an MCP `Icon` object may be (protocol 2026-07-28,
//! `schema.ts`'s `Icon`). `#[tool(icon(...))]` is held to it at compile time, `check` holds
//! tools built at run time and definitions files to it, and MCP renderings carry only the
//! icons that meet it.

use std::fmt;

/// What is wrong with one part of an icon. Its [`Display`](fmt::Display) is a sentence that
/// names the part and the value.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum IconProblem {
    /// The `src` is not an `https:`/`http:` URL or a `data:` URI of base64 image data.
    Src {
        /// The `src` as given.
        src: String,
        /// What is wrong with it.
        why: SrcProblem,
    },
    /// The MIME type is not an image type (`image/...`).
    MimeType {
        /// The MIME type as given.
        mime_type: String,
    },
    /// The size at `index` of the list is not `WxH` (`48x48`) or `any`.
    Size {
        /// Its place in the list.
        index: usize,
        /// The size as given.
        size: String,
    },
    /// A list of sizes was given, and it is empty.
    NoSizes,
    /// The theme is neither `light` nor `dark`.
    Theme {
        /// The theme as given.
        theme: String,
    },
}

/// Why an icon's `src` cannot be used ([`IconProblem::Src`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SrcProblem {
    /// It is empty.
    Empty,
    /// Its scheme is not `https:`, `http:` or `data:`.
    Scheme,
    /// An `https:` or `http:` URL without `//` and a host.
    NoHost,
    /// It holds a character a URI cannot: a space, a control character, one of
    /// `"<>\^`{|}`, or one outside ASCII (each is written percent-encoded).
    Character {
        /// The first such character.
        found: char,
    },
    /// A `data:` URI that is not `data:image/...;base64,` followed by base64.
    NotBase64Image,
}

/// The part of an icon a problem is about, for pointing at it. Exhaustive, so every place that
/// points at parts learns of a new one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IconPart {
    /// `src`.
    Src,
    /// The MIME type.
    MimeType,
    /// The list of sizes as a whole.
    Sizes,
    /// The size at this place of the list.
    Size(usize),
    /// The theme.
    Theme,
}

impl IconProblem {
    /// The part of the icon the problem is about.
    pub fn part(&self) -> IconPart {
        match self {
            Self::Src { .. } => IconPart::Src,
            Self::MimeType { .. } => IconPart::MimeType,
            Self::Size { index, .. } => IconPart::Size(*index),
            Self::NoSizes => IconPart::Sizes,
            Self::Theme { .. } => IconPart::Theme,
        }
    }
}

/// At most this many characters of a value are quoted in a message (a `data:` URI can be
/// kilobytes long).
const QUOTED: usize = 48;

/// A value in a message: control characters escaped, and cut short when long.
struct Quoted<'a>(&'a str);

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, c) in self.0.chars().enumerate() {
            if i == QUOTED {
                return f.write_str("…");
            }
            if c.is_control() {
                write!(f, "{}", c.escape_debug())?;
            } else {
                write!(f, "{c}")?;
            }
        }
        Ok(())
    }
}

impl fmt::Display for IconProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const SRC: &str = "an icon's src is an https: or http: URL, or a data: URI with base64 \
                           image data (data:image/png;base64,...)";
        match self {
            Self::Src { src, why } => {
                let src = Quoted(src);
                match why {
                    SrcProblem::Empty => write!(f, "the icon's src is empty; {SRC}"),
                    SrcProblem::Scheme => {
                        write!(
                            f,
                            "the icon's src `{src}` is not a URL the rule allows: {SRC}"
                        )
                    }
                    SrcProblem::NoHost => write!(
                        f,
                        "the icon's src `{src}` names no host: write it as https://host/path"
                    ),
                    SrcProblem::Character { found } => {
                        let what = match found {
                            ' ' => "a space".to_owned(),
                            c if c.is_control() => {
                                format!("U+{:04X}, a control character", u32::from(*c))
                            }
                            c if c.is_whitespace() => {
                                format!("U+{:04X}, a space character", u32::from(*c))
                            }
                            c => format!("`{c}`"),
                        };
                        write!(
                            f,
                            "the icon's src `{src}` holds {what}, which a URI cannot: \
                             percent-encode it (a space is %20)"
                        )
                    }
                    SrcProblem::NotBase64Image => write!(
                        f,
                        "the icon's src `{src}` is not base64 image data: a data: URI is \
                         data:image/TYPE;base64, and then the base64 of the image"
                    ),
                }
            }
            Self::MimeType { mime_type } => write!(
                f,
                "the icon's MIME type `{}` is not an image type: image/png, image/jpeg, \
                 image/svg+xml, image/webp, ...",
                Quoted(mime_type)
            ),
            Self::Size { size, .. } => write!(
                f,
                "the icon size `{}` is neither WxH in pixels (48x48) nor `any`",
                Quoted(size)
            ),
            Self::NoSizes => f.write_str(
                "the icon's list of sizes is empty; name at least one (48x48, or any), or \
                 leave the list out",
            ),
            Self::Theme { theme } => write!(
                f,
                "the icon theme `{}` is neither `light` (for a light background) nor `dark`",
                Quoted(theme)
            ),
        }
    }
}

impl std::error::Error for IconProblem {}

/// Why `src` cannot be an icon's source: it must be an `https:` or `http:` URL with a host, or
/// a `data:` URI of base64 image data (`data:image/png;base64,iVBOR...`). Schemes are read
/// case-insensitively, as URIs are.
///
/// ```
/// use tool_grammar::{SrcProblem, IconProblem, icon_src_problem};
/// assert!(icon_src_problem("https://example.com/icon.png").is_ok());
/// assert!(icon_src_problem("data:image/png;base64,iVBORw0KGgo=").is_ok());
/// let Err(IconProblem::Src { why, .. }) = icon_src_problem("ftp://example.com/icon.png") else {
///     panic!()
/// };
/// assert_eq!(why, SrcProblem::Scheme);
/// ```
pub fn icon_src_problem(src: &str) -> Result<(), IconProblem> {
    let problem = |why| {
        Err(IconProblem::Src {
            src: src.to_owned(),
            why,
        })
    };
    if src.is_empty() {
        return problem(SrcProblem::Empty);
    }
    let Some((scheme, rest)) = src.split_once(':') else {
        return problem(SrcProblem::Scheme);
    };
    let scheme = scheme.to_ascii_lowercase();
    if !matches!(scheme.as_str(), "https" | "http" | "data") {
        return problem(SrcProblem::Scheme);
    }
    if let Some(found) = src.chars().find(|&c| !is_uri_char(c)) {
        return problem(SrcProblem::Character { found });
    }
    if scheme == "data" {
        return match is_base64_image(rest) {
            true => Ok(()),
            false => problem(SrcProblem::NotBase64Image),
        };
    }
    let host = rest
        .strip_prefix("//")
        .map(|after| after.split(['/', '?', '#']).next().unwrap_or_default());
    match host {
        Some(host) if !host.is_empty() => Ok(()),
        _ => problem(SrcProblem::NoHost),
    }
}

/// Whether `c` may be written in a URI as it is (RFC 3986: unreserved, reserved, and `%` of
/// a percent-encoding).
fn is_uri_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "-._~:/?#[]@!$&'()*+,;=%".contains(c)
}

/// Whether `rest` (a `data:` URI after `data:`) is `image/TYPE[;param...];base64,DATA` with
/// DATA base64 (the standard alphabet, `=` only at the end).
fn is_base64_image(rest: &str) -> bool {
    let Some((header, data)) = rest.split_once(',') else {
        return false;
    };
    let header = header.to_ascii_lowercase();
    let Some(media) = header.strip_suffix(";base64") else {
        return false;
    };
    let essence = media.split(';').next().unwrap_or_default();
    let body = data.trim_end_matches('=');
    is_image_type(essence)
        && !body.is_empty()
        && data.len() - body.len() <= 2
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/')
}

/// Whether `mime_type` is `image/SUBTYPE` (parameters after `;` allowed), as RFC 6838 names
/// types: letters, digits and `!#$&-^_.+` in the subtype.
fn is_image_type(mime_type: &str) -> bool {
    let essence = mime_type.split(';').next().unwrap_or_default().trim();
    let Some((kind, subtype)) = essence.split_once('/') else {
        return false;
    };
    kind.eq_ignore_ascii_case("image")
        && !subtype.is_empty()
        && subtype
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$&-^_.+".contains(&b))
}

/// Why `mime_type` cannot be an icon's MIME type: it must be an image type, `image/...`.
///
/// ```
/// assert!(tool_grammar::icon_mime_type_problem("image/svg+xml").is_ok());
/// assert!(tool_grammar::icon_mime_type_problem("text/html").is_err());
/// ```
pub fn icon_mime_type_problem(mime_type: &str) -> Result<(), IconProblem> {
    match is_image_type(mime_type) {
        true => Ok(()),
        false => Err(IconProblem::MimeType {
            mime_type: mime_type.to_owned(),
        }),
    }
}

/// Whether `size` is one an icon's sizes may hold: `WxH` in pixels, each a whole number
/// above zero without leading zeros (`48x48`, `1024x512`), or `any` (a scalable image).
///
/// ```
/// assert!(tool_grammar::is_icon_size("48x48") && tool_grammar::is_icon_size("any"));
/// assert!(!tool_grammar::is_icon_size("48") && !tool_grammar::is_icon_size("48 x 48"));
/// ```
pub fn is_icon_size(size: &str) -> bool {
    let number =
        |n: &str| !n.is_empty() && !n.starts_with('0') && n.bytes().all(|b| b.is_ascii_digit());
    size == "any"
        || size
            .split_once('x')
            .is_some_and(|(w, h)| number(w) && number(h))
}

/// Every problem of a list of sizes given for an icon, in list order: an empty list, a size
/// that is not `WxH` or `any` ([`is_icon_size`]). Empty when the list is good.
///
/// ```
/// use tool_grammar::icon_sizes_problems;
/// assert!(icon_sizes_problems(&["48x48", "any"]).is_empty());
/// assert_eq!(
///     icon_sizes_problems(&["48x48", "48"])[0].to_string(),
///     "the icon size `48` is neither WxH in pixels (48x48) nor `any`",
/// );
/// ```
pub fn icon_sizes_problems<S: AsRef<str>>(sizes: &[S]) -> Vec<IconProblem> {
    if sizes.is_empty() {
        return vec![IconProblem::NoSizes];
    }
    sizes
        .iter()
        .enumerate()
        .filter(|(_, size)| !is_icon_size(size.as_ref()))
        .map(|(index, size)| IconProblem::Size {
            index,
            size: size.as_ref().to_owned(),
        })
        .collect()
}

/// Why `theme` cannot be an icon's theme: it is `light` or `dark`.
///
/// ```
/// assert!(tool_grammar::icon_theme_problem("dark").is_ok());
/// assert!(tool_grammar::icon_theme_problem("Dark").is_err());
/// ```
pub fn icon_theme_problem(theme: &str) -> Result<(), IconProblem> {
    match theme {
        "light" | "dark" => Ok(()),
        _ => Err(IconProblem::Theme {
            theme: theme.to_owned(),
        }),
    }
}

/// Every problem of one icon, in the order of its parts: `src`, MIME type, sizes (`None`
/// when no list was given), theme. Empty when the icon meets the rule.
///
/// ```
/// use tool_grammar::{IconPart, icon_problems};
/// assert!(icon_problems("https://example.com/a.png", Some("image/png"), Some(&["48x48"]), Some("dark")).is_empty());
/// let problems = icon_problems("https://example.com/a.png", None, Some(&["big"]), Some("blue"));
/// let parts: Vec<IconPart> = problems.iter().map(|p| p.part()).collect();
/// assert_eq!(parts, [IconPart::Size(0), IconPart::Theme]);
/// ```
pub fn icon_problems<S: AsRef<str>>(
    src: &str,
    mime_type: Option<&str>,
    sizes: Option<&[S]>,
    theme: Option<&str>,
) -> Vec<IconProblem> {
    let mut problems = Vec::new();
    problems.extend(icon_src_problem(src).err());
    problems.extend(mime_type.and_then(|m| icon_mime_type_problem(m).err()));
    problems.extend(sizes.map(icon_sizes_problems).unwrap_or_default());
    problems.extend(theme.and_then(|t| icon_theme_problem(t).err()));
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    fn why(src: &str) -> Option<SrcProblem> {
        match icon_src_problem(src) {
            Ok(()) => None,
            Err(IconProblem::Src { why, .. }) => Some(why),
            Err(other) => panic!("{other}"),
        }
    }

    #[test]
    fn sources_are_web_urls_or_base64_images() {
        for good in [
            "https://example.com/icon.png",
            "http://example.com",
            "HTTPS://example.com/a?b#c",
            "https://[::1]:8080/x.svg",
            "https://example.com/my%20icon.png?size=48&theme=dark#frag",
            "https://user@example.com/~a/(b)/c;d=e,f*g+h!i$j'k",
            "data:image/png;base64,iVBORw0KGgo=",
            "data:image/svg+xml;charset=utf-8;base64,PHN2Zz4=",
            "DATA:IMAGE/PNG;BASE64,AAAA",
        ] {
            assert_eq!(why(good), None, "{good}");
        }
        for (bad, expected) in [
            ("", SrcProblem::Empty),
            ("icon.png", SrcProblem::Scheme),
            ("/icons/a.png", SrcProblem::Scheme),
            ("ftp://example.com/a.png", SrcProblem::Scheme),
            ("file:///tmp/a.png", SrcProblem::Scheme),
            ("javascript:alert(1)", SrcProblem::Scheme),
            ("https:example.com", SrcProblem::NoHost),
            ("https:///a.png", SrcProblem::NoHost),
            (
                "https://example.com/my icon.png",
                SrcProblem::Character { found: ' ' },
            ),
            (
                "https://example.com/\n",
                SrcProblem::Character { found: '\n' },
            ),
            (
                "https://example.com/\"a\".png",
                SrcProblem::Character { found: '"' },
            ),
            (
                "https://example.com/{a}.png",
                SrcProblem::Character { found: '{' },
            ),
            (
                "https://example.com/ícone.png",
                SrcProblem::Character { found: 'í' },
            ),
            ("data:image/png,rawbytes", SrcProblem::NotBase64Image),
            ("data:text/plain;base64,aGk=", SrcProblem::NotBase64Image),
            ("data:image/png;base64,", SrcProblem::NotBase64Image),
            ("data:image/png;base64,a*b", SrcProblem::NotBase64Image),
            ("data:image/png;base64,ab===", SrcProblem::NotBase64Image),
            ("data:;base64,aGk=", SrcProblem::NotBase64Image),
        ] {
            assert_eq!(why(bad), Some(expected), "{bad:?}");
        }
    }

    #[test]
    fn sizes_themes_and_types() {
        for good in ["48x48", "96x96", "1024x512", "any", "1x1"] {
            assert!(is_icon_size(good), "{good}");
        }
        for bad in [
            "48", "x48", "48x", "48X48", "048x48", "0x0", "Any", " 48x48", "4 8x48", "-1x2",
        ] {
            assert!(!is_icon_size(bad), "{bad}");
        }
        assert_eq!(icon_sizes_problems::<&str>(&[]), [IconProblem::NoSizes]);
        let problems = icon_sizes_problems(&["48", "any", "big"]);
        let parts: Vec<IconPart> = problems.iter().map(IconProblem::part).collect();
        assert_eq!(parts, [IconPart::Size(0), IconPart::Size(2)]);
        assert!(icon_theme_problem("dark").is_ok() && icon_theme_problem("light").is_ok());
        assert!(icon_theme_problem("Dark").is_err() && icon_theme_problem("blue").is_err());
        for good in ["image/png", "image/svg+xml", "IMAGE/JPEG", "image/png; q=1"] {
            assert!(icon_mime_type_problem(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "png",
            "image/",
            "text/html",
            "application/pdf",
            "image/p ng",
        ] {
            assert!(icon_mime_type_problem(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn messages_quote_long_values_cut_short() {
        let long = format!("data:text/plain;base64,{}", "A".repeat(4000));
        let message = icon_src_problem(&long).unwrap_err().to_string();
        assert!(message.len() < 300, "{message}");
        assert!(message.contains("data:text/plain;base64,AAAA"), "{message}");
        assert!(message.contains('…'), "{message}");
        let message = icon_theme_problem("a\nb").unwrap_err().to_string();
        assert!(message.contains("`a\\nb`"), "{message}");
    }

    proptest::proptest! {
        /// Whatever the text, the rule answers without panicking, and the parts it reports
        /// are those given.
        #[test]
        fn any_text_is_judged(src in ".{0,40}", size in ".{0,8}", theme in ".{0,6}", mime in ".{0,12}") {
            let problems = icon_problems(&src, Some(&mime), Some(&[size.as_str()]), Some(&theme));
            for problem in &problems {
                let _ = problem.to_string();
            }
            proptest::prop_assert_eq!(problems.iter().any(|p| p.part() == IconPart::Src), icon_src_problem(&src).is_err());
            proptest::prop_assert_eq!(problems.iter().any(|p| p.part() == IconPart::Size(0)), !is_icon_size(&size));
        }
    }
}

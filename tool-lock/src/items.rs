//! Resources and prompts in the lock: each as served (`uri` or `uriTemplate`, `name`, `title`,
//! `description`, `mimeType`; a prompt's `arguments`), plus `scopes`, and the review's rules
//! for them. A lock of a registry without any writes neither list, so a tools-only lock file
//! reads and writes as before.

use std::collections::BTreeSet;

use serde_json::{Map, Value};
use tool_core::Registry;

use crate::review::{Change, change, compare_scopes};

/// A resource, template or prompt of a [`Lock`](crate::Lock).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct LockedItem {
    /// Its key: a resource's URI or template, a prompt's name.
    pub key: String,
    /// Its definition as served, plus `scopes` when it has them.
    pub definition: Value,
}

pub(crate) fn resources_of(registry: &Registry) -> Vec<LockedItem> {
    let mut items: Vec<LockedItem> = registry
        .resources()
        .iter()
        .map(|r| {
            let mut d = Map::new();
            let key = if r.is_template() {
                "uriTemplate"
            } else {
                "uri"
            };
            d.insert(key.into(), r.uri().into());
            d.insert("name".into(), r.name().into());
            if let Some(title) = r.title_text() {
                d.insert("title".into(), title.into());
            }
            d.insert("description".into(), r.description().into());
            if let Some(mime) = r.mime() {
                d.insert("mimeType".into(), mime.into());
            }
            if !r.scope_list().is_empty() {
                d.insert("scopes".into(), r.scope_list().into());
            }
            LockedItem {
                key: r.uri().to_owned(),
                definition: Value::Object(d),
            }
        })
        .collect();
    items.sort_by(|a, b| a.key.cmp(&b.key));
    items
}

pub(crate) fn prompts_of(registry: &Registry) -> Vec<LockedItem> {
    let mut items: Vec<LockedItem> = registry
        .prompts()
        .iter()
        .map(|p| {
            let mut d = Map::new();
            d.insert("name".into(), p.name().into());
            if let Some(title) = p.title_text() {
                d.insert("title".into(), title.into());
            }
            d.insert("description".into(), p.description().into());
            let arguments: Vec<Value> = p
                .arguments()
                .iter()
                .map(|a| {
                    let mut arg = Map::new();
                    arg.insert("name".into(), a.name.as_ref().into());
                    if let Some(description) = &a.description {
                        arg.insert("description".into(), description.as_ref().into());
                    }
                    arg.insert("required".into(), a.required.into());
                    Value::Object(arg)
                })
                .collect();
            if !arguments.is_empty() {
                d.insert("arguments".into(), arguments.into());
            }
            if !p.scope_list().is_empty() {
                d.insert("scopes".into(), p.scope_list().into());
            }
            LockedItem {
                key: p.name().to_owned(),
                definition: Value::Object(d),
            }
        })
        .collect();
    items.sort_by(|a, b| a.key.cmp(&b.key));
    items
}

/// Which list an item is in.
#[derive(Clone, Copy)]
pub(crate) enum Kind {
    Resource,
    Prompt,
}

impl Kind {
    pub(crate) fn list(self) -> &'static str {
        match self {
            Kind::Resource => "resources",
            Kind::Prompt => "prompts",
        }
    }

    fn key_of(self, definition: &Map<String, Value>) -> Option<String> {
        let keys: &[&str] = match self {
            Kind::Resource => &["uri", "uriTemplate"],
            Kind::Prompt => &["name"],
        };
        keys.iter()
            .find_map(|k| definition.get(*k).and_then(Value::as_str))
            .map(str::to_owned)
    }
}

/// Reads a lock's `resources` or `prompts`: `Err((path, problem))` for one that is not.
pub(crate) fn parse(kind: Kind, value: Option<Value>) -> Result<Vec<LockedItem>, (String, String)> {
    let list = kind.list();
    let items = match value {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(_) => return Err((list.to_owned(), "expected an array".to_owned())),
    };
    let mut out = Vec::with_capacity(items.len());
    let mut keys = BTreeSet::new();
    for (i, item) in items.into_iter().enumerate() {
        let at = format!("{list}[{i}]");
        let Value::Object(map) = item else {
            return Err((at, "expected an object".to_owned()));
        };
        let Some(key) = kind.key_of(&map) else {
            let needs = match kind {
                Kind::Resource => "a resource needs its `uri` or `uriTemplate`, a string",
                Kind::Prompt => "a prompt needs its `name`, a string",
            };
            return Err((at, needs.to_owned()));
        };
        if !keys.insert(key.clone()) {
            return Err((at, format!("`{key}` is listed twice")));
        }
        out.push(LockedItem {
            key,
            definition: Value::Object(map),
        });
    }
    out.sort_by(|a, b| a.key.cmp(&b.key));
    Ok(out)
}

/// The changes between two lists of one kind.
pub(crate) fn compare(kind: Kind, old: &[LockedItem], new: &[LockedItem], out: &mut Vec<Change>) {
    let (removed, added, noun) = match kind {
        Kind::Resource => ("resource.removed", "resource.added", "resource"),
        Kind::Prompt => ("prompt.removed", "prompt.added", "prompt"),
    };
    for before in old {
        match new.iter().find(|n| n.key == before.key) {
            Some(after) => compare_item(
                kind,
                &before.key,
                &before.definition,
                &after.definition,
                out,
            ),
            None => out.push(change(
                removed,
                &before.key,
                "",
                format!("the {noun} is gone"),
            )),
        }
    }
    for after in new.iter().filter(|n| !old.iter().any(|o| o.key == n.key)) {
        out.push(change(added, &after.key, "", format!("a new {noun}")));
    }
}

fn compare_item(kind: Kind, key: &str, old: &Value, new: &Value, out: &mut Vec<Change>) {
    let mut push =
        |rule, pointer: &str, message: String| out.push(change(rule, key, pointer, message));
    let field = |v: &Value, k: &str| v.get(k).cloned().unwrap_or(Value::Null);
    for (k, what) in [
        ("name", "name"),
        ("title", "title"),
        ("description", "description"),
    ] {
        if field(old, k) != field(new, k) {
            push(
                "item.text.changed",
                &format!("/{k}"),
                format!("the {what} changed"),
            );
        }
    }
    compare_scopes(old, new, &mut push);
    match kind {
        Kind::Resource => {
            if field(old, "mimeType") != field(new, "mimeType") {
                push(
                    "resource.mime_type.changed",
                    "/mimeType",
                    format!(
                        "the MIME type was {}, is {}",
                        field(old, "mimeType"),
                        field(new, "mimeType")
                    ),
                );
            }
        }
        Kind::Prompt => compare_arguments(old, new, &mut push),
    }
}

fn compare_arguments(old: &Value, new: &Value, push: &mut impl FnMut(&'static str, &str, String)) {
    let arguments = |v: &Value| -> Vec<(String, bool)> {
        v.get("arguments")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|a| {
                        let name = a.get("name")?.as_str()?.to_owned();
                        Some((
                            name,
                            a.get("required").and_then(Value::as_bool) == Some(true),
                        ))
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let (before, after) = (arguments(old), arguments(new));
    for (name, required) in &before {
        match after.iter().find(|(n, _)| n == name) {
            None => push(
                "prompt.argument.removed",
                "/arguments",
                format!("the argument `{name}` is gone"),
            ),
            Some((_, now)) if *now && !required => push(
                "prompt.argument.required",
                "/arguments",
                format!("the argument `{name}` is now required"),
            ),
            Some((_, now)) if !now && *required => push(
                "prompt.argument.optional",
                "/arguments",
                format!("the argument `{name}` is now optional"),
            ),
            Some(_) => {}
        }
    }
    for (name, required) in after
        .iter()
        .filter(|(n, _)| !before.iter().any(|(b, _)| b == n))
    {
        if *required {
            push(
                "prompt.argument.required",
                "/arguments",
                format!("a new argument `{name}` is required"),
            );
        } else {
            push(
                "prompt.argument.added",
                "/arguments",
                format!("a new optional argument `{name}`"),
            );
        }
    }
}

/// Writes a list into the lock's root, when it has items.
pub(crate) fn write(root: &mut Map<String, Value>, kind: Kind, items: &[LockedItem]) {
    if !items.is_empty() {
        let list = items.iter().map(|i| i.definition.clone()).collect();
        root.insert(kind.list().into(), Value::Array(list));
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn prompt(arguments: Value) -> LockedItem {
        LockedItem {
            key: "review_code".into(),
            definition: json!({"name": "review_code", "description": "Reviews.", "arguments": arguments}),
        }
    }

    fn rules(old: &[LockedItem], new: &[LockedItem], kind: Kind) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        compare(kind, old, new, &mut out);
        out.into_iter().map(|c| (c.rule, c.message)).collect()
    }

    #[test]
    fn a_prompts_arguments_are_reviewed_one_by_one() {
        let old = [prompt(
            json!([{"name": "code", "required": true}, {"name": "tone", "required": false}]),
        )];
        let new = [prompt(
            json!([{"name": "tone", "required": true}, {"name": "lang", "required": false}]),
        )];
        let found = rules(&old, &new, Kind::Prompt);
        assert!(
            found.contains(&(
                "prompt.argument.removed",
                "the argument `code` is gone".into()
            )),
            "{found:?}"
        );
        assert!(
            found.contains(&(
                "prompt.argument.required",
                "the argument `tone` is now required".into()
            )),
            "{found:?}"
        );
        assert!(
            found.contains(&(
                "prompt.argument.added",
                "a new optional argument `lang`".into()
            )),
            "{found:?}"
        );
    }

    #[test]
    fn resources_are_keyed_by_uri_and_their_mime_type_and_scopes_reviewed() {
        let item = |mime: &str, scopes: Value| LockedItem {
            key: "notes://today".into(),
            definition: json!({"uri": "notes://today", "name": "today", "description": "d", "mimeType": mime, "scopes": scopes}),
        };
        let found = rules(
            &[item("text/plain", json!([]))],
            &[item("text/markdown", json!(["notes:read"]))],
            Kind::Resource,
        );
        let ids: Vec<&str> = found.iter().map(|(r, _)| *r).collect();
        assert_eq!(
            ids,
            ["scopes.added", "resource.mime_type.changed"],
            "{found:?}"
        );
        let gone = rules(&[item("text/plain", json!([]))], &[], Kind::Resource);
        assert_eq!(
            gone,
            [("resource.removed", "the resource is gone".to_owned())]
        );
    }

    #[test]
    fn a_list_that_is_not_one_is_an_error_with_its_path() {
        let err = parse(Kind::Prompt, Some(json!([{"name": "a"}, {"title": "b"}]))).unwrap_err();
        assert_eq!(
            err,
            (
                "prompts[1]".to_owned(),
                "a prompt needs its `name`, a string".to_owned()
            )
        );
        let err = parse(
            Kind::Resource,
            Some(json!([{"uri": "a://x"}, {"uri": "a://x"}])),
        )
        .unwrap_err();
        assert_eq!(err.1, "`a://x` is listed twice");
    }
}

//! Resources and prompts in the lock: each as served (`uri` or `uriTemplate`, `name`, `title`,
//! `description`, `mimeType`; a prompt's `arguments`), plus `scopes`, and the review's rules
//! for them. A lock of a registry without any writes neither list, so a tools-only lock file
//! reads and writes as before.

use std::collections::BTreeSet;

use serde_json::{Map, Value};
use tool_core::Registry;

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

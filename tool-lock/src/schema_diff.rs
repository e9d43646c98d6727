//! The comparison of two JSON Schemas of one tool: its input (what a model sends) or its output
//! (what a client reads), each difference classified by which side it breaks.
//!
//! An input change breaks callers when it refuses an input the old schema accepted (a
//! parameter removed or newly required, a type, an enum or a bound narrowed, a branch removed);
//! an output change breaks readers when it allows an output the old one could not produce (a
//! field removed or no longer always there, a type or an enum widened, a branch added). Local
//! `$ref`s are followed on both sides (cycles stop), `anyOf`/`oneOf` branches are paired by
//! content before they are compared, and key order never matters: objects are compared as maps,
//! and `required`, `enum` and `type` as sets.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

/// Which schema of a tool is compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    /// `inputSchema`: its consumer is whoever calls the tool.
    Input,
    /// `outputSchema`: its consumer is whoever reads the result.
    Output,
}

/// One difference: the rule's id, where (a JSON pointer into the current definition; for what
/// was removed, where it was), and what changed.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Found {
    pub(crate) pointer: String,
    pub(crate) rule: &'static str,
    pub(crate) message: String,
}

/// Keywords that say something to people and nothing to a validator.
const DOC_KEYWORDS: &[&str] = &[
    "description",
    "title",
    "examples",
    "$comment",
    "deprecated",
    "readOnly",
    "writeOnly",
];

/// Keywords the comparison reads itself; any other keyword that differs is a change it cannot
/// order (`*.schema.changed`).
const KNOWN_KEYWORDS: &[&str] = &[
    "$ref",
    "$schema",
    "$id",
    "$defs",
    "definitions",
    "$anchor",
    "type",
    "enum",
    "const",
    "default",
    "anyOf",
    "oneOf",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "prefixItems",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "minContains",
    "maxContains",
    "multipleOf",
    "pattern",
    "format",
    "uniqueItems",
];

/// How deep references and nesting are followed: deeper is reported as one unordered change.
const MAX_DEPTH: usize = 64;

/// Compares `old` and `new`, schemas of `side` whose definition pointer is `base`
/// (`/inputSchema`).
pub(crate) fn compare(side: Side, base: &str, old: &Value, new: &Value) -> Vec<Found> {
    let mut diff = Diff {
        side,
        base,
        old_root: old,
        new_root: new,
        refs: Vec::new(),
        out: Vec::new(),
    };
    diff.schema(old, new, base.to_owned(), &Path::root());
    diff.out.sort();
    diff.out.dedup();
    diff.out
}

/// Whether two schemas are the same but for what they say to people.
pub(crate) fn same_shape(a: &Value, b: &Value) -> bool {
    strip_docs(a) == strip_docs(b)
}

fn strip_docs(v: &Value) -> Value {
    match v {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| !DOC_KEYWORDS.contains(&k.as_str()))
                .map(|(k, v)| {
                    // Inside `properties` and the like, keys are names, not keywords.
                    let v = match k.as_str() {
                        "properties" | "$defs" | "definitions" | "patternProperties" => match v {
                            Value::Object(m) => Value::Object(
                                m.iter().map(|(k, v)| (k.clone(), strip_docs(v))).collect(),
                            ),
                            other => other.clone(),
                        },
                        "enum" | "const" | "default" => v.clone(),
                        _ => strip_docs(v),
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(strip_docs).collect()),
        other => other.clone(),
    }
}

/// Where a value sits in an instance, for messages: `filter.kind`, `days[]`, `(the input)`.
#[derive(Debug, Clone)]
struct Path(String);

impl Path {
    fn root() -> Self {
        Self(String::new())
    }
    fn field(&self, name: &str) -> Self {
        if self.0.is_empty() {
            Self(name.to_owned())
        } else {
            Self(format!("{}.{name}", self.0))
        }
    }
    fn item(&self) -> Self {
        Self(format!("{}[]", self.0))
    }
    fn tuple(&self, i: usize) -> Self {
        Self(format!("{}[{i}]", self.0))
    }
}

struct Diff<'a> {
    side: Side,
    base: &'a str,
    old_root: &'a Value,
    new_root: &'a Value,
    /// The reference pairs being followed, to stop at a cycle.
    refs: Vec<(String, String)>,
    out: Vec<Found>,
}

/// The rule ids of one concept, by which way the set of valid values moved.
struct Pair {
    input_narrow: &'static str,
    input_widen: &'static str,
    output_narrow: &'static str,
    output_widen: &'static str,
}

const TYPE: Pair = Pair {
    input_narrow: "input.type.narrowed",
    input_widen: "input.type.widened",
    output_narrow: "output.type.narrowed",
    output_widen: "output.type.widened",
};
const ENUM: Pair = Pair {
    input_narrow: "input.enum.narrowed",
    input_widen: "input.enum.widened",
    output_narrow: "output.enum.narrowed",
    output_widen: "output.enum.widened",
};
const VARIANT: Pair = Pair {
    input_narrow: "input.variant.removed",
    input_widen: "input.variant.added",
    output_narrow: "output.variant.removed",
    output_widen: "output.variant.added",
};
const BOUND: Pair = Pair {
    input_narrow: "input.bound.tightened",
    input_widen: "input.bound.loosened",
    output_narrow: "output.bound.tightened",
    output_widen: "output.bound.loosened",
};
const ADDITIONAL: Pair = Pair {
    input_narrow: "input.additional.closed",
    input_widen: "input.additional.opened",
    output_narrow: "output.additional.closed",
    output_widen: "output.additional.opened",
};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Way {
    /// Fewer values are valid than before.
    Narrow,
    /// More values are valid than before.
    Widen,
}

impl Diff<'_> {
    fn push(&mut self, pointer: &str, rule: &'static str, message: String) {
        self.out.push(Found {
            pointer: pointer.to_owned(),
            rule,
            message,
        });
    }

    fn moved(&mut self, pair: &Pair, way: Way, pointer: &str, message: String) {
        let rule = match (self.side, way) {
            (Side::Input, Way::Narrow) => pair.input_narrow,
            (Side::Input, Way::Widen) => pair.input_widen,
            (Side::Output, Way::Narrow) => pair.output_narrow,
            (Side::Output, Way::Widen) => pair.output_widen,
        };
        self.push(pointer, rule, message);
    }

    fn what(&self, path: &Path) -> String {
        match (self.side, path.0.is_empty()) {
            (Side::Input, true) => "the input".to_owned(),
            (Side::Output, true) => "the output".to_owned(),
            (Side::Input, false) => format!("parameter `{}`", path.0),
            (Side::Output, false) => format!("field `{}`", path.0),
        }
    }

    fn unordered(&mut self, pointer: &str, message: String) {
        let rule = match self.side {
            Side::Input => "input.schema.changed",
            Side::Output => "output.schema.changed",
        };
        self.push(pointer, rule, message);
    }

    /// A local `$ref` followed, with the pointer of its target in this side's definition.
    fn resolve<'v>(&self, v: &Value, root: &'v Value) -> Option<(&'v Value, String, String)> {
        let reference = v.get("$ref")?.as_str()?;
        let pointer = reference.strip_prefix('#')?;
        let target = root.pointer(pointer)?;
        Some((
            target,
            format!("{}{pointer}", self.base),
            reference.to_owned(),
        ))
    }

    fn schema(&mut self, old: &Value, new: &Value, pointer: String, path: &Path) {
        if self.refs.len() > MAX_DEPTH {
            if old != new {
                let what = self.what(path);
                self.unordered(
                    &pointer,
                    format!("{what} changed deeper than can be followed"),
                );
            }
            return;
        }
        // References: follow each side's to its target, siblings kept beside it.
        let (old_root, new_root) = (self.old_root, self.new_root);
        let old_ref = self.resolve(old, old_root);
        let new_ref = self.resolve(new, new_root);
        if old_ref.is_some() || new_ref.is_some() {
            let key = (
                old_ref.as_ref().map_or(String::new(), |r| r.2.clone()),
                new_ref.as_ref().map_or(String::new(), |r| r.2.clone()),
            );
            if self.refs.contains(&key) {
                return;
            }
            let old_target = old_ref.as_ref().map(|r| r.0);
            let new_target = new_ref.as_ref().map(|r| r.0);
            let old_merged = merged(old, old_target);
            let new_merged = merged(new, new_target);
            let pointer = new_ref.map_or(pointer, |r| r.1);
            self.refs.push(key);
            self.compare_resolved(&old_merged, &new_merged, old, new, pointer, path);
            self.refs.pop();
            return;
        }
        self.compare_resolved(old, new, old, new, pointer, path);
    }

    /// `old` and `new` with references followed; `old_raw` and `new_raw` as written (branch
    /// pairing matches references by name).
    fn compare_resolved(
        &mut self,
        old: &Value,
        new: &Value,
        old_raw: &Value,
        new_raw: &Value,
        pointer: String,
        path: &Path,
    ) {
        let empty = Map::new();
        let falsy = false_schema();
        let (old, new) = (as_schema(old, &falsy), as_schema(new, &falsy));
        let (o, n) = (
            old.as_object().unwrap_or(&empty),
            new.as_object().unwrap_or(&empty),
        );
        self.docs(o, n, &pointer, path);
        let (ov, nv) = (variants(o), variants(n));
        match (ov, nv) {
            (None, None) => self.body(o, n, &pointer, path),
            (Some(ov), Some(nv)) => {
                self.variants(ov, nv, &pointer, path);
                self.body(o, n, &pointer, path);
            }
            (None, Some(nv)) => self.variants(Branches::one(old_raw), nv, &pointer, path),
            (Some(ov), None) => self.variants(ov, Branches::one(new_raw), &pointer, path),
        }
    }

    fn docs(&mut self, o: &Map<String, Value>, n: &Map<String, Value>, pointer: &str, path: &Path) {
        let mut keys: Vec<&str> = DOC_KEYWORDS.to_vec();
        if self.side == Side::Output {
            // Nobody sends an output: its default documents, it does not decide.
            keys.push("default");
        }
        for key in keys {
            if o.get(key) != n.get(key) {
                let what = self.what(path);
                let how = match (o.get(key), n.get(key)) {
                    (None, _) => "added",
                    (_, None) => "removed",
                    _ => "changed",
                };
                self.push(
                    &format!("{pointer}/{key}"),
                    "schema.doc",
                    format!("the {key} of {what} was {how}"),
                );
            }
        }
    }

    /// Everything but the branches: types, values, bounds, object and array structure.
    fn body(&mut self, o: &Map<String, Value>, n: &Map<String, Value>, pointer: &str, path: &Path) {
        self.types(o, n, pointer, path);
        self.values(o, n, pointer, path);
        self.bounds(o, n, pointer, path);
        if self.side == Side::Input && o.get("default") != n.get("default") {
            let what = self.what(path);
            let message = match (o.get("default"), n.get("default")) {
                (None, Some(d)) => format!("{what} now defaults to {d}"),
                (Some(d), None) => format!("{what} no longer defaults to {d}"),
                (Some(a), Some(b)) => format!("the default of {what} changed from {a} to {b}"),
                (None, None) => String::new(),
            };
            self.push(
                &format!("{pointer}/default"),
                "input.default.changed",
                message,
            );
        }
        let object = ["properties", "required", "additionalProperties"];
        if object
            .iter()
            .any(|k| o.contains_key(*k) || n.contains_key(*k))
        {
            self.object(o, n, pointer, path);
        }
        self.arrays(o, n, pointer, path);
        let mut others: BTreeSet<&str> = BTreeSet::new();
        for key in o.keys().chain(n.keys()) {
            if !KNOWN_KEYWORDS.contains(&key.as_str()) && !DOC_KEYWORDS.contains(&key.as_str()) {
                others.insert(key);
            }
        }
        for key in others {
            if o.get(key) != n.get(key) {
                let what = self.what(path);
                self.unordered(
                    &format!("{pointer}/{key}"),
                    format!("`{key}` of {what} changed, in a way this comparison cannot order"),
                );
            }
        }
    }

    fn types(
        &mut self,
        o: &Map<String, Value>,
        n: &Map<String, Value>,
        pointer: &str,
        path: &Path,
    ) {
        let (old, new) = (types(o, self.old_root), types(n, self.new_root));
        let (old, new) = match (old, new) {
            (None, None) => return,
            (Some(a), Some(b)) if a == b => return,
            (a, b) => (a, b),
        };
        let what = self.what(path);
        let show = |t: &Option<BTreeSet<String>>| match t {
            None => "any type".to_owned(),
            Some(t) if t.is_empty() => "nothing".to_owned(),
            Some(t) => t.iter().cloned().collect::<Vec<_>>().join(" or "),
        };
        let message = format!("{what} was {}, now {}", show(&old), show(&new));
        let way = match (&old, &new) {
            (None, Some(_)) => Way::Narrow,
            (Some(_), None) => Way::Widen,
            (Some(a), Some(b)) if subset(b, a) => Way::Narrow,
            (Some(a), Some(b)) if subset(a, b) => Way::Widen,
            // Neither holds the other: some values of each are lost, which breaks the side
            // the change is read from.
            _ => match self.side {
                Side::Input => Way::Narrow,
                Side::Output => Way::Widen,
            },
        };
        self.moved(&TYPE, way, &format!("{pointer}/type"), message);
    }

    fn values(
        &mut self,
        o: &Map<String, Value>,
        n: &Map<String, Value>,
        pointer: &str,
        path: &Path,
    ) {
        let (old, new) = (values(o), values(n));
        let what = self.what(path);
        let at = if n.contains_key("const") || (!n.contains_key("enum") && o.contains_key("const"))
        {
            format!("{pointer}/const")
        } else {
            format!("{pointer}/enum")
        };
        match (old, new) {
            (None, None) => {}
            (None, Some(new)) => {
                let message = format!("{what} is now limited to {}", list(&new));
                self.moved(&ENUM, Way::Narrow, &at, message);
            }
            (Some(old), None) => {
                let message = format!("{what} is no longer limited to {}", list(&old));
                self.moved(&ENUM, Way::Widen, &at, message);
            }
            (Some(old), Some(new)) => {
                let removed: Vec<&Value> =
                    old.iter().filter(|v| !new.contains(v)).copied().collect();
                let added: Vec<&Value> = new.iter().filter(|v| !old.contains(v)).copied().collect();
                if !removed.is_empty() {
                    let message = format!("{what} no longer takes {}", list(&removed));
                    self.moved(&ENUM, Way::Narrow, &at, message);
                }
                if !added.is_empty() {
                    let message = format!("{what} now also takes {}", list(&added));
                    self.moved(&ENUM, Way::Widen, &at, message);
                }
            }
        }
    }

    fn bounds(
        &mut self,
        o: &Map<String, Value>,
        n: &Map<String, Value>,
        pointer: &str,
        path: &Path,
    ) {
        let what = self.what(path);
        // Numbers: the inclusive and exclusive forms of each end, as one bound.
        for (lower, inclusive, exclusive) in [
            (true, "minimum", "exclusiveMinimum"),
            (false, "maximum", "exclusiveMaximum"),
        ] {
            let (a, b) = (
                bound(o, inclusive, exclusive),
                bound(n, inclusive, exclusive),
            );
            if a == b {
                continue;
            }
            let at = if n.contains_key(exclusive) || (a.is_some_and(|a| a.1) && b.is_none()) {
                format!("{pointer}/{exclusive}")
            } else {
                format!("{pointer}/{inclusive}")
            };
            let way = match (a, b) {
                (None, Some(_)) => Way::Narrow,
                (Some(_), None) => Way::Widen,
                (Some(a), Some(b)) => {
                    let tighter = if lower { b.0 > a.0 } else { b.0 < a.0 };
                    if tighter || (b.0 == a.0 && b.1 && !a.1) {
                        Way::Narrow
                    } else {
                        Way::Widen
                    }
                }
                (None, None) => continue,
            };
            let show = |x: Option<(f64, bool)>| match x {
                None => "none".to_owned(),
                Some((v, true)) => format!("{} (exclusive)", number(v)),
                Some((v, false)) => number(v),
            };
            let side = if lower { "lower" } else { "upper" };
            let message = format!(
                "the {side} bound of {what} went from {} to {}",
                show(a),
                show(b)
            );
            self.moved(&BOUND, way, &at, message);
        }
        // Counts: lengths, items, properties, contains.
        for (key, lower) in [
            ("minLength", true),
            ("maxLength", false),
            ("minItems", true),
            ("maxItems", false),
            ("minProperties", true),
            ("maxProperties", false),
            ("minContains", true),
            ("maxContains", false),
        ] {
            let (a, b) = (
                o.get(key).and_then(Value::as_f64),
                n.get(key).and_then(Value::as_f64),
            );
            let way = match (a, b) {
                (None, Some(_)) => Way::Narrow,
                (Some(_), None) => Way::Widen,
                (Some(a), Some(b)) if a == b => continue,
                (Some(a), Some(b)) => {
                    if (b > a) == lower {
                        Way::Narrow
                    } else {
                        Way::Widen
                    }
                }
                (None, None) => continue,
            };
            let show = |x: Option<f64>| x.map_or("none".to_owned(), number);
            let message = format!("`{key}` of {what} went from {} to {}", show(a), show(b));
            self.moved(&BOUND, way, &format!("{pointer}/{key}"), message);
        }
        // multipleOf: a multiple of the old step accepts fewer values.
        let (a, b) = (
            o.get("multipleOf").and_then(Value::as_f64),
            n.get("multipleOf").and_then(Value::as_f64),
        );
        let way = match (a, b) {
            (None, Some(_)) => Some(Way::Narrow),
            (Some(_), None) => Some(Way::Widen),
            (Some(a), Some(b)) if a == b => None,
            (Some(a), Some(b)) if a != 0.0 && (b / a).fract() == 0.0 => Some(Way::Narrow),
            (Some(a), Some(b)) if b != 0.0 && (a / b).fract() == 0.0 => Some(Way::Widen),
            (Some(_), Some(_)) => Some(Way::Narrow),
            (None, None) => None,
        };
        if let Some(way) = way {
            let show = |x: Option<f64>| x.map_or("none".to_owned(), number);
            let message = format!(
                "`multipleOf` of {what} went from {} to {}",
                show(a),
                show(b)
            );
            self.moved(&BOUND, way, &format!("{pointer}/multipleOf"), message);
        }
        // pattern and format: any new or changed one may refuse what was accepted.
        for key in ["pattern", "format"] {
            let (a, b) = (o.get(key), n.get(key));
            if a == b {
                continue;
            }
            let way = if b.is_none() { Way::Widen } else { Way::Narrow };
            let show = |x: Option<&Value>| x.map_or("none".to_owned(), Value::to_string);
            let message = format!("the {key} of {what} went from {} to {}", show(a), show(b));
            self.moved(&BOUND, way, &format!("{pointer}/{key}"), message);
        }
        let unique = |m: &Map<String, Value>| {
            m.get("uniqueItems")
                .and_then(Value::as_bool)
                .unwrap_or(false)
        };
        if unique(o) != unique(n) {
            let (way, message) = if unique(n) {
                (
                    Way::Narrow,
                    format!("the items of {what} must now be unique"),
                )
            } else {
                (
                    Way::Widen,
                    format!("the items of {what} need no longer be unique"),
                )
            };
            self.moved(&BOUND, way, &format!("{pointer}/uniqueItems"), message);
        }
    }

    fn object(
        &mut self,
        o: &Map<String, Value>,
        n: &Map<String, Value>,
        pointer: &str,
        path: &Path,
    ) {
        let true_schema = Value::Object(Map::new());
        let (op, np) = (properties(o), properties(n));
        let (or, nr) = (required(o), required(n));
        let old_names: BTreeSet<&str> = op.keys().copied().chain(or.iter().copied()).collect();
        let new_names: BTreeSet<&str> = np.keys().copied().chain(nr.iter().copied()).collect();
        let prop = |name: &str| format!("{pointer}/properties/{}", escape(name));
        for name in old_names.intersection(&new_names) {
            let (a, b) = (
                op.get(name).copied().unwrap_or(&true_schema),
                np.get(name).copied().unwrap_or(&true_schema),
            );
            let field = path.field(name);
            self.required_change(or.contains(name), nr.contains(name), &prop(name), &field);
            self.schema(a, b, prop(name), &field);
        }
        let removed: Vec<&str> = old_names.difference(&new_names).copied().collect();
        let mut added: Vec<&str> = new_names.difference(&old_names).copied().collect();
        for name in removed {
            let field = path.field(name);
            let schema = op.get(name).copied().unwrap_or(&true_schema);
            // A property gone and another come, with the same schema and the same need: renamed.
            let twin = added.iter().position(|a| {
                same_shape(schema, np.get(a).copied().unwrap_or(&true_schema))
                    && or.contains(name) == nr.contains(a)
            });
            let noun = match self.side {
                Side::Input => "parameter",
                Side::Output => "field",
            };
            match twin {
                Some(i) => {
                    let to = added.remove(i);
                    let rule = match self.side {
                        Side::Input => "input.param.renamed",
                        Side::Output => "output.field.renamed",
                    };
                    let message =
                        format!("{noun} `{}` was renamed to `{}`", field.0, path.field(to).0);
                    self.push(&prop(to), rule, message);
                }
                None => {
                    let rule = match self.side {
                        Side::Input => "input.param.removed",
                        Side::Output => "output.field.removed",
                    };
                    self.push(
                        &prop(name),
                        rule,
                        format!("{noun} `{}` was removed", field.0),
                    );
                }
            }
        }
        for name in added {
            let field = path.field(name);
            let (rule, message) = match (self.side, nr.contains(name)) {
                (Side::Input, true) => (
                    "input.required.added",
                    format!("new parameter `{}` is required", field.0),
                ),
                (Side::Input, false) => (
                    "input.param.added",
                    format!("new optional parameter `{}`", field.0),
                ),
                (Side::Output, _) => ("output.field.added", format!("new field `{}`", field.0)),
            };
            self.push(&prop(name), rule, message);
        }
        // What is allowed beside the named properties.
        let (a, b) = (additional(o), additional(n));
        let at = format!("{pointer}/additionalProperties");
        let what = self.what(path);
        match (a, b) {
            (Some(a), Some(b)) => self.schema(a, b, at, &path.field("*")),
            (Some(_), None) => {
                let message = format!("{what} no longer takes properties beyond those named");
                self.moved(&ADDITIONAL, Way::Narrow, &at, message);
            }
            (None, Some(_)) => {
                let message = format!("{what} now takes properties beyond those named");
                self.moved(&ADDITIONAL, Way::Widen, &at, message);
            }
            (None, None) => {}
        }
    }

    fn required_change(&mut self, was: bool, is: bool, pointer: &str, field: &Path) {
        if was == is {
            return;
        }
        let (rule, message) = match (self.side, is) {
            (Side::Input, true) => (
                "input.required.added",
                format!("parameter `{}` is now required", field.0),
            ),
            (Side::Input, false) => (
                "input.required.removed",
                format!("parameter `{}` is now optional", field.0),
            ),
            (Side::Output, true) => (
                "output.required.added",
                format!("field `{}` is now always present", field.0),
            ),
            (Side::Output, false) => (
                "output.required.removed",
                format!("field `{}` may now be absent", field.0),
            ),
        };
        self.push(pointer, rule, message);
    }

    fn arrays(
        &mut self,
        o: &Map<String, Value>,
        n: &Map<String, Value>,
        pointer: &str,
        path: &Path,
    ) {
        let true_schema = Value::Object(Map::new());
        match (o.get("items"), n.get("items")) {
            (None, None) => {}
            (a, b) => self.schema(
                a.unwrap_or(&true_schema),
                b.unwrap_or(&true_schema),
                format!("{pointer}/items"),
                &path.item(),
            ),
        }
        let empty = Vec::new();
        let a = o
            .get("prefixItems")
            .and_then(Value::as_array)
            .unwrap_or(&empty);
        let b = n
            .get("prefixItems")
            .and_then(Value::as_array)
            .unwrap_or(&empty);
        for i in 0..a.len().min(b.len()) {
            self.schema(
                &a[i],
                &b[i],
                format!("{pointer}/prefixItems/{i}"),
                &path.tuple(i),
            );
        }
        if a.len() != b.len() {
            let what = self.what(path);
            self.unordered(
                &format!("{pointer}/prefixItems"),
                format!(
                    "the tuple of {what} went from {} to {} items",
                    a.len(),
                    b.len()
                ),
            );
        }
    }

    fn variants(&mut self, old: Branches<'_>, new: Branches<'_>, pointer: &str, path: &Path) {
        let what = self.what(path);
        if let (Some(a), Some(b)) = (old.keyword, new.keyword)
            && a != b
        {
            self.unordered(
                &format!("{pointer}/{b}"),
                format!("the branches of {what} changed from `{a}` to `{b}`"),
            );
        }
        let keyword = new.keyword.or(old.keyword).unwrap_or("anyOf");
        let pairs = pair_branches(&old.items, &new.items, self.old_root, self.new_root);
        let mut old_matched = vec![false; old.items.len()];
        let mut new_matched = vec![false; new.items.len()];
        for &(i, j) in &pairs {
            old_matched[i] = true;
            new_matched[j] = true;
            let at = match new.keyword {
                Some(k) => format!("{pointer}/{k}/{j}"),
                None => pointer.to_owned(),
            };
            self.schema(old.items[i], new.items[j], at, path);
        }
        // A branch that is a bare type (`{"type": "null"}`, what `Option` adds) changes the
        // types allowed; any other is a branch.
        let bare = |v: &Value| bare_types(std::slice::from_ref(v));
        for (i, matched) in old_matched.iter().enumerate() {
            if !matched {
                let at = format!("{pointer}/{keyword}");
                match bare(old.items[i]) {
                    Some(t) => {
                        let message = format!("{what} is no longer {}", join(&t));
                        self.moved(&TYPE, Way::Narrow, &at, message);
                    }
                    None => {
                        let message = format!("{what} lost the branch {}", short(old.items[i]));
                        self.moved(&VARIANT, Way::Narrow, &at, message);
                    }
                }
            }
        }
        for (j, matched) in new_matched.iter().enumerate() {
            if !matched {
                let at = format!("{pointer}/{keyword}/{j}");
                match bare(new.items[j]) {
                    Some(t) => {
                        let message = format!("{what} may now be {}", join(&t));
                        self.moved(&TYPE, Way::Widen, &at, message);
                    }
                    None => {
                        let message = format!("{what} gained the branch {}", short(new.items[j]));
                        self.moved(&VARIANT, Way::Widen, &at, message);
                    }
                }
            }
        }
    }
}

/// The branches of a schema: its `anyOf` or `oneOf`, or the schema itself as the one branch
/// when the other side has branches.
struct Branches<'v> {
    keyword: Option<&'static str>,
    items: Vec<&'v Value>,
}

impl<'v> Branches<'v> {
    fn one(v: &'v Value) -> Self {
        Self {
            keyword: None,
            items: vec![v],
        }
    }
}

/// The `anyOf`/`oneOf` branches of a schema, unless every branch is a bare type (`{"type":
/// "null"}`), which [`types`] reads as a union of types instead.
fn variants(m: &Map<String, Value>) -> Option<Branches<'_>> {
    for keyword in ["anyOf", "oneOf"] {
        if let Some(Value::Array(items)) = m.get(keyword) {
            if bare_types(items).is_some() {
                return None;
            }
            return Some(Branches {
                keyword: Some(keyword),
                items: items.iter().collect(),
            });
        }
    }
    None
}

/// The types of branches that say nothing but a type, as one union; `None` when one says more.
fn bare_types(items: &[Value]) -> Option<BTreeSet<String>> {
    let mut out = BTreeSet::new();
    for item in items {
        let map = item.as_object()?;
        if map
            .keys()
            .any(|k| k != "type" && !DOC_KEYWORDS.contains(&k.as_str()))
        {
            return None;
        }
        out.extend(type_keyword(map.get("type")?)?);
    }
    Some(out)
}

fn type_keyword(v: &Value) -> Option<BTreeSet<String>> {
    match v {
        Value::String(t) => Some(BTreeSet::from([t.clone()])),
        Value::Array(ts) => Some(
            ts.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
        ),
        _ => None,
    }
}

/// The types a schema allows, as far as it says: its `type`, a union of bare-type branches, or
/// the types of its `enum`/`const` values; `None` for any type.
fn types(m: &Map<String, Value>, _root: &Value) -> Option<BTreeSet<String>> {
    if let Some(t) = m.get("type").and_then(type_keyword) {
        return Some(t);
    }
    for keyword in ["anyOf", "oneOf"] {
        if let Some(Value::Array(items)) = m.get(keyword) {
            return bare_types(items);
        }
    }
    let values = values(m)?;
    Some(values.iter().map(|v| json_type(v).to_owned()).collect())
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Whether every type of `a` is allowed by `b` (an integer is a number).
fn subset(a: &BTreeSet<String>, b: &BTreeSet<String>) -> bool {
    a.iter()
        .all(|t| b.contains(t) || (t == "integer" && b.contains("number")))
}

/// The values an `enum` or a `const` allows, each once.
fn values(m: &Map<String, Value>) -> Option<Vec<&Value>> {
    let mut out: Vec<&Value> = match (m.get("enum"), m.get("const")) {
        (Some(Value::Array(values)), _) => values.iter().collect(),
        (_, Some(value)) => vec![value],
        _ => return None,
    };
    out.sort_by_key(|v| canonical(v));
    out.dedup();
    Some(out)
}

fn join(types: &BTreeSet<String>) -> String {
    types.iter().cloned().collect::<Vec<_>>().join(" or ")
}

fn list(values: &[&Value]) -> String {
    let mut shown: Vec<String> = values.iter().map(|v| canonical(v)).collect();
    shown.sort();
    shown.join(", ")
}

/// A numeric bound: its value, and whether it is exclusive. Draft 4's boolean
/// `exclusiveMinimum` beside `minimum` is read too.
fn bound(m: &Map<String, Value>, inclusive: &str, exclusive: &str) -> Option<(f64, bool)> {
    let inc = m.get(inclusive).and_then(Value::as_f64);
    match m.get(exclusive) {
        Some(Value::Bool(true)) => inc.map(|v| (v, true)),
        Some(v) => match (v.as_f64(), inc) {
            (Some(e), Some(i)) => {
                // Both: the tighter one decides.
                let lower = inclusive == "minimum";
                if (lower && e >= i) || (!lower && e <= i) {
                    Some((e, true))
                } else {
                    Some((i, false))
                }
            }
            (Some(e), None) => Some((e, true)),
            (None, i) => i.map(|v| (v, false)),
        },
        None => inc.map(|v| (v, false)),
    }
}

fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

fn properties(m: &Map<String, Value>) -> BTreeMap<&str, &Value> {
    match m.get("properties") {
        Some(Value::Object(props)) => props.iter().map(|(k, v)| (k.as_str(), v)).collect(),
        _ => BTreeMap::new(),
    }
}

fn required(m: &Map<String, Value>) -> BTreeSet<&str> {
    match m.get("required") {
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ => BTreeSet::new(),
    }
}

/// What is allowed beyond the named properties: `None` for nothing (`false`), else the schema
/// (`{}` when unsaid).
fn additional(m: &Map<String, Value>) -> Option<&Value> {
    static ANY: Value = Value::Bool(true);
    match m.get("additionalProperties") {
        Some(Value::Bool(false)) => None,
        Some(schema) => Some(schema),
        None => Some(&ANY),
    }
}

/// A JSON pointer token (RFC 6901).
fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

fn short(v: &Value) -> String {
    let text = canonical(v);
    match text.char_indices().nth(60) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

/// `{}` for `true`, a schema that allows nothing for `false`, anything else as it is.
fn as_schema<'v>(v: &'v Value, falsy: &'v Value) -> &'v Value {
    static EMPTY: Value = Value::Bool(true);
    match v {
        Value::Bool(false) => falsy,
        Value::Bool(true) => &EMPTY,
        other => other,
    }
}

/// A schema that allows nothing, in the shape the comparison reads: no type at all.
fn false_schema() -> Value {
    let mut m = Map::new();
    m.insert("type".into(), Value::Array(Vec::new()));
    Value::Object(m)
}

/// A referencing schema with its target's keywords, its own siblings winning.
fn merged(v: &Value, target: Option<&Value>) -> Value {
    let Some(target) = target else {
        return v.clone();
    };
    let mut out = match target {
        Value::Object(m) => m.clone(),
        Value::Bool(false) => match false_schema() {
            Value::Object(m) => m,
            _ => Map::new(),
        },
        _ => Map::new(),
    };
    if let Value::Object(m) = v {
        for (k, val) in m {
            if k != "$ref" {
                out.insert(k.clone(), val.clone());
            }
        }
    }
    Value::Object(out)
}

/// Pairs the branches of two unions: the same branch first, then the same reference, the same
/// constant tag (`{"kind": {"const": "a"}}`), the same title, the same types, and at last the
/// one branch left on each side.
fn pair_branches(
    old: &[&Value],
    new: &[&Value],
    old_root: &Value,
    new_root: &Value,
) -> Vec<(usize, usize)> {
    let mut pairs = Vec::new();
    let mut old_free: Vec<usize> = (0..old.len()).collect();
    let mut new_free: Vec<usize> = (0..new.len()).collect();
    type Key = fn(&Value, &Value) -> Option<String>;
    let keys: [Key; 4] = [
        |v, _| v.get("$ref").and_then(Value::as_str).map(str::to_owned),
        tags,
        |v, root| {
            let v = follow(v, root);
            v.get("title").and_then(Value::as_str).map(str::to_owned)
        },
        |v, root| {
            let v = follow(v, root);
            v.as_object()
                .and_then(|m| types(m, root))
                .map(|t| t.into_iter().collect::<Vec<_>>().join(","))
        },
    ];
    // The same branch: paired in order, repeats included.
    for &i in &old_free.clone() {
        let key = canonical(&strip_docs(old[i]));
        if let Some(pos) = new_free
            .iter()
            .position(|&j| canonical(&strip_docs(new[j])) == key)
        {
            pairs.push((i, new_free.remove(pos)));
            old_free.retain(|x| *x != i);
        }
    }
    for key in keys {
        // Pairs by this key only where it is unique on both sides.
        let old_keys: Vec<(usize, String)> = old_free
            .iter()
            .filter_map(|&i| key(old[i], old_root).map(|k| (i, k)))
            .collect();
        let new_keys: Vec<(usize, String)> = new_free
            .iter()
            .filter_map(|&j| key(new[j], new_root).map(|k| (j, k)))
            .collect();
        for (i, k) in &old_keys {
            let same_old = old_keys.iter().filter(|(_, x)| x == k).count();
            let matches: Vec<usize> = new_keys
                .iter()
                .filter(|(_, x)| x == k)
                .map(|(j, _)| *j)
                .collect();
            if same_old == 1 && matches.len() == 1 && new_free.contains(&matches[0]) {
                pairs.push((*i, matches[0]));
                old_free.retain(|x| x != i);
                new_free.retain(|x| *x != matches[0]);
            }
        }
    }
    if old_free.len() == 1 && new_free.len() == 1 {
        pairs.push((old_free[0], new_free[0]));
    }
    pairs.sort();
    pairs
}

/// A schema with one local reference followed (for reading its title and types).
fn follow<'v>(v: &'v Value, root: &'v Value) -> &'v Value {
    v.get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix('#'))
        .and_then(|p| root.pointer(p))
        .unwrap_or(v)
}

/// The constant properties of a branch (`kind = "a"`), the tag of a tagged union.
fn tags(v: &Value, root: &Value) -> Option<String> {
    let v = follow(v, root);
    let props = v.get("properties")?.as_object()?;
    let mut tags: Vec<String> = props
        .iter()
        .filter_map(|(name, p)| {
            let p = follow(p, root);
            let value = p.get("const").or_else(|| {
                p.get("enum")
                    .and_then(Value::as_array)
                    .filter(|e| e.len() == 1)
                    .and_then(|e| e.first())
            })?;
            Some(format!("{name}={}", canonical(value)))
        })
        .collect();
    tags.sort();
    (!tags.is_empty()).then(|| tags.join("&"))
}

/// JSON text with every object's keys sorted: the same for any key order.
pub(crate) fn canonical(v: &Value) -> String {
    fn write(v: &Value, out: &mut String) {
        match v {
            Value::Object(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort();
                out.push('{');
                for (i, k) in keys.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&Value::String(k.clone()).to_string());
                    out.push(':');
                    write(&m[k.as_str()], out);
                }
                out.push('}');
            }
            Value::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write(item, out);
                }
                out.push(']');
            }
            other => out.push_str(&other.to_string()),
        }
    }
    let mut out = String::new();
    write(v, &mut out);
    out
}

//! Typed accessors: a JSON value or an object's member of the expected
//! type, or the error at its path (`expected a number, found "lots"`).
//! Optional members treat `null` as absent; a required member that is
//! `null` is a type error; integers are exact within ±2^53.

use super::path::{InputError, Path};
use crate::model::types::DiskTemplate;
use crate::read::json::{Array, Object, Picked, Value};

/// The largest integer magnitude hailstone accepts (2^53).
pub const MAX_INT: i64 = 1 << 53;

/// An object's members by key: the object itself, or the members picked
/// from it in one pass for an object read many times (nodes, instances).
pub(super) trait Fields<'d> {
    /// The value of the first member with this key.
    fn field(&self, key: &str) -> Option<Value<'d>>;
}

impl<'d> Fields<'d> for Object<'d> {
    fn field(&self, key: &str) -> Option<Value<'d>> {
        self.get(key)
    }
}

impl<'d, const N: usize> Fields<'d> for Picked<'d, N> {
    fn field(&self, key: &str) -> Option<Value<'d>> {
        self.get(key)
    }
}

pub(super) fn found(v: Value<'_>) -> String {
    v.describe()
}

pub(crate) fn as_object<'d>(v: Value<'d>, path: &Path) -> Result<Object<'d>, InputError> {
    v.as_object()
        .ok_or_else(|| path.error(format!("expected an object, found {}", found(v))))
}

pub(crate) fn as_array<'d>(v: Value<'d>, path: &Path) -> Result<Array<'d>, InputError> {
    v.as_array()
        .ok_or_else(|| path.error(format!("expected an array, found {}", found(v))))
}

/// A required key; `null` counts as present (and then fails the type
/// check).
pub(super) fn required<'d>(
    m: &impl Fields<'d>,
    key: &str,
    path: &Path,
    what: &str,
) -> Result<Value<'d>, InputError> {
    m.field(key)
        .ok_or_else(|| path.error(format!("missing; expected {what}")))
}

/// An optional key: absent and `null` are both `None`.
pub(super) fn optional<'d>(m: &impl Fields<'d>, key: &str) -> Option<Value<'d>> {
    m.field(key).filter(|v| !v.is_null())
}

pub(crate) fn int_value(v: Value<'_>, path: &Path) -> Result<i64, InputError> {
    match v.as_number() {
        Some(n) => n.as_int().ok_or_else(|| {
            path.error(format!(
                "expected an integer between -{MAX_INT} and {MAX_INT}, found {}",
                found(v)
            ))
        }),
        None => Err(path.error(format!("expected an integer, found {}", found(v)))),
    }
}

pub(crate) fn f64_value(v: Value<'_>, path: &Path) -> Result<f64, InputError> {
    match v.as_number() {
        Some(n) => {
            let x = n.as_f64();
            if x.is_finite() {
                Ok(x)
            } else {
                Err(path.error(format!("expected a finite number, found {}", found(v))))
            }
        }
        None => Err(path.error(format!("expected a number, found {}", found(v)))),
    }
}

pub(crate) fn bool_value(v: Value<'_>, path: &Path) -> Result<bool, InputError> {
    v.as_bool()
        .ok_or_else(|| path.error(format!("expected true or false, found {}", found(v))))
}

pub(crate) fn str_value<'d>(v: Value<'d>, path: &Path) -> Result<&'d str, InputError> {
    v.as_str()
        .ok_or_else(|| path.error(format!("expected a string, found {}", found(v))))
}

pub(crate) fn str_list<'d>(v: Value<'d>, path: &Path) -> Result<Vec<&'d str>, InputError> {
    let items = as_array(v, path)?;
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        out.push(str_value(item, &path.index(i))?);
    }
    Ok(out)
}

pub(super) fn req_int<'d>(m: &impl Fields<'d>, key: &str, path: &Path) -> Result<i64, InputError> {
    let p = path.field(key);
    int_value(required(m, key, &p, "an integer")?, &p)
}

pub(super) fn req_f64<'d>(m: &impl Fields<'d>, key: &str, path: &Path) -> Result<f64, InputError> {
    let p = path.field(key);
    f64_value(required(m, key, &p, "a number")?, &p)
}

pub(super) fn req_bool<'d>(
    m: &impl Fields<'d>,
    key: &str,
    path: &Path,
) -> Result<bool, InputError> {
    let p = path.field(key);
    bool_value(required(m, key, &p, "true or false")?, &p)
}

pub(super) fn req_str<'d>(
    m: &impl Fields<'d>,
    key: &str,
    path: &Path,
) -> Result<&'d str, InputError> {
    let p = path.field(key);
    str_value(required(m, key, &p, "a string")?, &p)
}

pub(super) fn req_str_list<'d>(
    m: &impl Fields<'d>,
    key: &str,
    path: &Path,
) -> Result<Vec<&'d str>, InputError> {
    let p = path.field(key);
    str_list(required(m, key, &p, "a list of strings")?, &p)
}

pub(super) fn opt_str<'d>(
    m: &impl Fields<'d>,
    key: &str,
    path: &Path,
) -> Result<Option<&'d str>, InputError> {
    match optional(m, key) {
        None => Ok(None),
        Some(v) => Ok(Some(str_value(v, &path.field(key))?)),
    }
}

pub(crate) fn enum_value<T: Copy>(
    v: Value<'_>,
    path: &Path,
    choices: &[(&str, T)],
) -> Result<T, InputError> {
    let Some(s) = v.as_str() else {
        return Err(path.error(format!("expected a string, found {}", found(v))));
    };
    choices
        .iter()
        .find(|(name, _)| *name == s)
        .map(|(_, t)| *t)
        .ok_or_else(|| {
            let names: Vec<String> = choices.iter().map(|(n, _)| format!("\"{n}\"")).collect();
            path.error(format!(
                "expected one of {}, found {}",
                names.join(", "),
                found(v)
            ))
        })
}

fn template_choices() -> Vec<(&'static str, DiskTemplate)> {
    DiskTemplate::ALL.iter().map(|t| (t.raw(), *t)).collect()
}

pub(crate) fn disk_template(v: Value<'_>, path: &Path) -> Result<DiskTemplate, InputError> {
    enum_value(v, path, &template_choices())
}

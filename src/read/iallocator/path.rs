//! Input errors and the JSON paths they name: [`InputError`] (where in
//! the request, and what is wrong there) and [`Path`], a chain of
//! segments kept borrowed and rendered only when an error needs it, e.g.
//! `nodes."node3".total_memory` (names quoted with the answer's JSON
//! escaping).

use std::fmt;

/// Bad input: the request cannot be read. Refused with exit status 1 and
/// nothing on stdout.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct InputError {
    /// Where in the request, e.g. `nodes."node3".total_memory`.
    pub path: String,
    /// What was expected and what was found.
    pub message: String,
}

/// A segment of a JSON path, kept borrowed until an error needs it.
#[derive(Clone, Copy)]
enum Seg<'a> {
    /// A schema field, printed bare (`.total_memory`).
    Field(&'a str),
    /// A user-chosen key such as a node name, printed quoted (`."node3"`).
    Name(&'a str),
    /// An array position (`[2]`).
    Index(usize),
}

/// A JSON path as a chain of segments; rendered only on error.
#[derive(Clone, Copy)]
pub struct Path<'a> {
    parent: Option<&'a Path<'a>>,
    seg: Option<Seg<'a>>,
}

impl<'a> Path<'a> {
    /// The document root.
    pub const ROOT: Path<'static> = Path {
        parent: None,
        seg: None,
    };

    /// The path of a schema field below this one.
    pub fn field(&'a self, name: &'a str) -> Path<'a> {
        Path {
            parent: Some(self),
            seg: Some(Seg::Field(name)),
        }
    }

    pub(crate) fn name(&'a self, name: &'a str) -> Path<'a> {
        Path {
            parent: Some(self),
            seg: Some(Seg::Name(name)),
        }
    }

    /// The path of an array position below this one.
    pub fn index(&'a self, i: usize) -> Path<'a> {
        Path {
            parent: Some(self),
            seg: Some(Seg::Index(i)),
        }
    }

    /// Builds an error at this path.
    pub fn error(&self, message: impl Into<String>) -> InputError {
        InputError {
            path: self.to_string(),
            message: message.into(),
        }
    }
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut segs = Vec::new();
        let mut cur = Some(self);
        while let Some(p) = cur {
            if let Some(s) = p.seg {
                segs.push(s);
            }
            cur = p.parent;
        }
        if segs.is_empty() {
            return f.write_str("(top level)");
        }
        for (i, s) in segs.iter().rev().enumerate() {
            match s {
                Seg::Field(n) => {
                    if i > 0 {
                        f.write_str(".")?;
                    }
                    f.write_str(n)?;
                }
                Seg::Name(n) => {
                    if i > 0 {
                        f.write_str(".")?;
                    }
                    let mut q = String::new();
                    crate::haskell::json::write_string(&mut q, n);
                    f.write_str(&q)?;
                }
                Seg::Index(k) => write!(f, "[{k}]")?,
            }
        }
        Ok(())
    }
}

//! A JSON value as the domain reads it: the adapter turns its parsed JSON into a [`Node`] so the rules of a
//! template definition can walk Meta's shape and name every error by the path the client wrote.

use crate::error::ValidationErrors;

/// A JSON value. Numbers keep their text (the rules only compare small integers).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    Null,
    Bool(bool),
    Number(String),
    Text(String),
    List(Vec<Node>),
    Object(Vec<(String, Node)>),
}

impl Node {
    /// What the client wrote, for an error message: `a string`, `an array`, …
    pub fn describe(&self) -> &'static str {
        match self {
            Self::Null => "null",
            Self::Bool(_) => "a boolean",
            Self::Number(_) => "a number",
            Self::Text(_) => "a string",
            Self::List(_) => "an array",
            Self::Object(_) => "an object",
        }
    }

    fn get(&self, name: &str) -> Option<&Node> {
        match self {
            Self::Object(fields) => fields
                .iter()
                .find(|(key, _)| key == name)
                .map(|(_, value)| value)
                .filter(|value| !matches!(value, Self::Null)),
            _ => None,
        }
    }
}

/// A node and the path it was found under; every reader records what is wrong under that path.
#[derive(Clone, Copy)]
pub(super) struct At<'a> {
    pub node: &'a Node,
    pub path: &'a str,
}

impl<'a> At<'a> {
    pub fn path_of(&self, name: &str) -> String {
        if self.path.is_empty() {
            name.to_owned()
        } else {
            format!("{}.{name}", self.path)
        }
    }

    /// The field `name`, absent when missing or `null`.
    pub fn field(&self, name: &str) -> Option<&'a Node> {
        self.node.get(name)
    }

    pub fn has(&self, name: &str) -> bool {
        self.node.get(name).is_some()
    }

    /// The string at `name`: `None` (recorded) when present but not a string, or when required and absent.
    pub fn text(&self, errors: &mut ValidationErrors, name: &str, required: bool) -> Option<&'a str> {
        match self.field(name) {
            Some(Node::Text(text)) => Some(text),
            Some(other) => {
                errors.push(crate::FieldError::new(
                    self.path_of(name),
                    format!("must be a string, not {}", other.describe()),
                ));
                None
            }
            None => {
                if required {
                    errors.push(crate::FieldError::new(self.path_of(name), "is required"));
                }
                None
            }
        }
    }

    pub fn boolean(&self, errors: &mut ValidationErrors, name: &str) -> Option<bool> {
        match self.field(name) {
            Some(Node::Bool(flag)) => Some(*flag),
            Some(other) => {
                errors.push(crate::FieldError::new(
                    self.path_of(name),
                    format!("must be a boolean, not {}", other.describe()),
                ));
                None
            }
            None => None,
        }
    }

    /// The items of the array at `name` (required), each with its own path `name[i]`.
    pub fn list(&self, errors: &mut ValidationErrors, name: &str) -> Option<Vec<(String, &'a Node)>> {
        match self.field(name) {
            Some(Node::List(items)) => Some(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| (format!("{}[{i}]", self.path_of(name)), item))
                    .collect(),
            ),
            Some(other) => {
                errors.push(crate::FieldError::new(
                    self.path_of(name),
                    format!("must be an array, not {}", other.describe()),
                ));
                None
            }
            None => {
                errors.push(crate::FieldError::new(self.path_of(name), "is required"));
                None
            }
        }
    }

    /// Records an error unless the node is an object.
    pub fn is_object(&self, errors: &mut ValidationErrors) -> bool {
        if matches!(self.node, Node::Object(_)) {
            true
        } else {
            errors.push(crate::FieldError::new(
                if self.path.is_empty() { "body" } else { self.path },
                format!("must be an object, not {}", self.node.describe()),
            ));
            false
        }
    }

    /// The names of the fields this object has that `known` does not list.
    pub fn unknown_fields(&self, known: &[&str]) -> Vec<String> {
        match self.node {
            Node::Object(fields) => fields
                .iter()
                .filter(|(key, _)| !known.contains(&key.as_str()))
                .map(|(key, _)| self.path_of(key))
                .collect(),
            _ => Vec::new(),
        }
    }
}

//! Renders IR back to C, for repairs that insert new code and for titles of repairs.

use super::program::Program;
use super::types::{FloatKind, IntKind, Type};

/// Spells `ty` as a C declaration of `name` (`""` for an abstract type such as a cast's).
pub fn type_to_c(ty: &Type, name: &str, program: Option<&Program>) -> String {
    let (base, declarator) = split_declarator(ty, name.to_string(), program);
    if declarator.is_empty() { base } else { format!("{base} {declarator}") }
}

fn split_declarator(ty: &Type, inner: String, program: Option<&Program>) -> (String, String) {
    match ty {
        Type::Pointer(to) => {
            let wrapped = if matches!(**to, Type::Array(..)) { format!("(*{inner})") } else { format!("*{inner}") };
            split_declarator(to, wrapped, program)
        }
        Type::Array(elem, n) => {
            let dims = match n {
                Some(n) => format!("{inner}[{n}]"),
                None => format!("{inner}[]"),
            };
            split_declarator(elem, dims, program)
        }
        other => (base_name(other, program), inner),
    }
}

fn base_name(ty: &Type, program: Option<&Program>) -> String {
    match ty {
        Type::Void => "void".into(),
        Type::Error => "<error>".into(),
        Type::Float(FloatKind::Float) => "float".into(),
        Type::Float(FloatKind::Double) => "double".into(),
        Type::Int(t) => {
            let name = match t.kind {
                IntKind::Bool => return "_Bool".into(),
                IntKind::Char => "char",
                IntKind::Short => "short",
                IntKind::Int => "int",
                IntKind::Long => "long",
                IntKind::LongLong => "long long",
            };
            if t.signed { name.to_string() } else { format!("unsigned {name}") }
        }
        Type::Struct(id) => match program {
            Some(p) => format!("struct {}", p.struct_def(*id).name),
            None => format!("struct #{}", id.0),
        },
        Type::Pointer(_) | Type::Array(..) => unreachable!("handled by split_declarator"),
    }
}

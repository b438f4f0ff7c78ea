//! C types of the supported subset, with the sizes of gcc on x86-64 Linux (LP64), because the
//! interpreter must agree with gcc-compiled programs.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IntKind {
    Bool,
    Char,
    Short,
    Int,
    Long,
    LongLong,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IntType {
    pub kind: IntKind,
    pub signed: bool,
}

impl IntType {
    /// The C spelling: `int`, `unsigned long`, `_Bool`.
    pub fn c_name(self) -> String {
        let name = match self.kind {
            IntKind::Bool => return "_Bool".into(),
            IntKind::Char => "char",
            IntKind::Short => "short",
            IntKind::Int => "int",
            IntKind::Long => "long",
            IntKind::LongLong => "long long",
        };
        if self.signed { name.to_string() } else { format!("unsigned {name}") }
    }

    pub const BOOL: IntType = IntType { kind: IntKind::Bool, signed: false };
    pub const CHAR: IntType = IntType { kind: IntKind::Char, signed: true };
    pub const UCHAR: IntType = IntType { kind: IntKind::Char, signed: false };
    pub const SHORT: IntType = IntType { kind: IntKind::Short, signed: true };
    pub const INT: IntType = IntType { kind: IntKind::Int, signed: true };
    pub const UINT: IntType = IntType { kind: IntKind::Int, signed: false };
    pub const LONG: IntType = IntType { kind: IntKind::Long, signed: true };
    pub const ULONG: IntType = IntType { kind: IntKind::Long, signed: false };
    pub const LLONG: IntType = IntType { kind: IntKind::LongLong, signed: true };

    pub fn bits(self) -> u32 {
        match self.kind {
            IntKind::Bool | IntKind::Char => 8,
            IntKind::Short => 16,
            IntKind::Int => 32,
            IntKind::Long | IntKind::LongLong => 64,
        }
    }

    /// Conversion rank for the usual arithmetic conversions (C11 6.3.1.1).
    pub fn rank(self) -> u8 {
        match self.kind {
            IntKind::Bool => 0,
            IntKind::Char => 1,
            IntKind::Short => 2,
            IntKind::Int => 3,
            IntKind::Long => 4,
            IntKind::LongLong => 5,
        }
    }

    /// Wraps `v` to this type's width and signedness (two's complement), as C conversion does.
    /// `_Bool` maps every non-zero value to 1.
    pub fn wrap(self, v: i64) -> i64 {
        if self.kind == IntKind::Bool {
            return (v != 0) as i64;
        }
        let bits = self.bits();
        if bits == 64 {
            return v;
        }
        let mask = (1u64 << bits) - 1;
        let u = (v as u64) & mask;
        if self.signed && (u >> (bits - 1)) & 1 == 1 { (u | !mask) as i64 } else { u as i64 }
    }

    pub fn min_value(self) -> i128 {
        if self.signed { -(1i128 << (self.bits() - 1)) } else { 0 }
    }

    pub fn max_value(self) -> i128 {
        if self.kind == IntKind::Bool {
            1
        } else if self.signed {
            (1i128 << (self.bits() - 1)) - 1
        } else {
            (1i128 << self.bits()) - 1
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatKind {
    Float,
    /// `double` and `long double` (the latter approximated as double).
    Double,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StructId(pub u32);

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    Void,
    Int(IntType),
    Float(FloatKind),
    Pointer(Box<Type>),
    /// Element type and length; `None` for `int a[]` parameters and incomplete arrays.
    Array(Box<Type>, Option<u64>),
    Struct(StructId),
    /// The type of an expression whose type could not be determined (after a reported error).
    /// It is compatible with everything so one mistake gives one diagnostic.
    Error,
}

impl Type {
    pub const INT: Type = Type::Int(IntType::INT);
    pub const CHAR: Type = Type::Int(IntType::CHAR);
    pub const DOUBLE: Type = Type::Float(FloatKind::Double);

    pub fn ptr(to: Type) -> Type {
        Type::Pointer(Box::new(to))
    }

    pub fn is_integer(&self) -> bool {
        matches!(self, Type::Int(_))
    }
    pub fn is_float(&self) -> bool {
        matches!(self, Type::Float(_))
    }
    pub fn is_arithmetic(&self) -> bool {
        matches!(self, Type::Int(_) | Type::Float(_))
    }
    pub fn is_pointer(&self) -> bool {
        matches!(self, Type::Pointer(_))
    }
    pub fn is_scalar(&self) -> bool {
        matches!(self, Type::Int(_) | Type::Float(_) | Type::Pointer(_))
    }
    pub fn is_error(&self) -> bool {
        matches!(self, Type::Error)
    }
    pub fn as_int(&self) -> Option<IntType> {
        match self {
            Type::Int(t) => Some(*t),
            _ => None,
        }
    }
    /// Pointee of a pointer, element of an array.
    pub fn pointee(&self) -> Option<&Type> {
        match self {
            Type::Pointer(t) | Type::Array(t, _) => Some(t),
            _ => None,
        }
    }
    /// True for `char*`-like types (any char signedness).
    pub fn is_char_pointer(&self) -> bool {
        matches!(self.pointee(), Some(Type::Int(IntType { kind: IntKind::Char, .. })))
    }
}

/// Integer promotion (C11 6.3.1.1): ranks below `int` become `int`.
pub fn promote(ty: &Type) -> Type {
    match ty {
        Type::Int(t) if t.rank() < IntType::INT.rank() => Type::INT,
        other => other.clone(),
    }
}

/// The usual arithmetic conversions (C11 6.3.1.8).
pub fn usual_arithmetic(a: &Type, b: &Type) -> Type {
    match (a, b) {
        (Type::Error, _) | (_, Type::Error) => Type::Error,
        (Type::Float(FloatKind::Double), _) | (_, Type::Float(FloatKind::Double)) => Type::DOUBLE,
        (Type::Float(_), _) | (_, Type::Float(_)) => Type::Float(FloatKind::Float),
        _ => {
            let (Type::Int(x), Type::Int(y)) = (promote(a), promote(b)) else { return Type::Error };
            if x == y {
                return Type::Int(x);
            }
            if x.signed == y.signed {
                return Type::Int(if x.rank() >= y.rank() { x } else { y });
            }
            let (s, u) = if x.signed { (x, y) } else { (y, x) };
            if u.rank() >= s.rank() {
                Type::Int(u)
            } else if s.bits() > u.bits() {
                Type::Int(s)
            } else {
                Type::Int(IntType { kind: s.kind, signed: false })
            }
        }
    }
}

/// Size and alignment need struct layouts, so they live on [`crate::ir::Program`]; this is the
/// layout-independent part used by the printer and diagnostics.
impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::ir::print::type_to_c(self, "", None))
    }
}

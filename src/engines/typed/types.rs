//! The types of the synthesis graph, interned. An lvalue of type `T` is its own type node
//! `Lv(T)`, so `&` (which needs an object) and `*`/`[i]`/`.f` (which produce one) are plain
//! edges of the graph and `&(a + b)` can never be built.

use std::collections::HashMap;

use crate::ir::{FloatKind, IntKind, IntType, Program, StructId, Type};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ty(pub u32);

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TyKind {
    Void,
    Int(IntType),
    Float(FloatKind),
    Ptr(Ty),
    Array(Ty, Option<u64>),
    Struct(StructId),
    /// A library type mend does not look into (`FILE`, `div_t`, `va_list`, `fnptr`, ...).
    Named(String),
    /// An object of the (rvalue) type: something `&` can take and `=` can assign.
    Lv(Ty),
}

#[derive(Clone, Debug)]
pub struct Types {
    kinds: Vec<TyKind>,
    index: HashMap<TyKind, Ty>,
    struct_names: Vec<String>,
}

impl Types {
    pub const VOID: Ty = Ty(0);
    pub const INT: Ty = Ty(1);
    pub const DOUBLE: Ty = Ty(2);
    pub const CHAR: Ty = Ty(3);
    pub const CHAR_PTR: Ty = Ty(4);
    pub const VOID_PTR: Ty = Ty(5);
    pub const SIZE_T: Ty = Ty(6);

    pub fn new(program: &Program) -> Types {
        let mut t = Types {
            kinds: Vec::new(),
            index: HashMap::new(),
            struct_names: program.structs.iter().map(|s| s.name.clone()).collect(),
        };
        // Fixed ids for the types the engine names in code.
        t.intern(TyKind::Void);
        t.intern(TyKind::Int(IntType::INT));
        t.intern(TyKind::Float(FloatKind::Double));
        t.intern(TyKind::Int(IntType::CHAR));
        t.intern(TyKind::Ptr(Types::CHAR));
        t.intern(TyKind::Ptr(Types::VOID));
        t.intern(TyKind::Int(IntType::ULONG));
        t
    }

    pub fn intern(&mut self, k: TyKind) -> Ty {
        if let Some(t) = self.index.get(&k) {
            return *t;
        }
        let t = Ty(self.kinds.len() as u32);
        self.kinds.push(k.clone());
        self.index.insert(k, t);
        t
    }

    pub fn len(&self) -> usize {
        self.kinds.len()
    }

    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
    }

    pub fn kind(&self, t: Ty) -> &TyKind {
        &self.kinds[t.0 as usize]
    }

    pub fn ptr(&mut self, t: Ty) -> Ty {
        self.intern(TyKind::Ptr(t))
    }

    pub fn lv(&mut self, t: Ty) -> Ty {
        match self.kind(t) {
            TyKind::Lv(_) => t,
            _ => self.intern(TyKind::Lv(t)),
        }
    }

    /// The value type of `t` (an lvalue's object type; arrays stay arrays).
    pub fn rv(&self, t: Ty) -> Ty {
        match self.kind(t) {
            TyKind::Lv(inner) => *inner,
            _ => t,
        }
    }

    /// The type an expression of type `t` has when used as a value: lvalues are read and
    /// arrays decay to a pointer to their first element.
    pub fn value(&mut self, t: Ty) -> Ty {
        let r = self.rv(t);
        match self.kind(r).clone() {
            TyKind::Array(elem, _) => self.ptr(elem),
            _ => r,
        }
    }

    pub fn from_ir(&mut self, t: &Type) -> Option<Ty> {
        Some(match t {
            Type::Void => Types::VOID,
            Type::Int(i) => self.intern(TyKind::Int(*i)),
            Type::Float(f) => self.intern(TyKind::Float(*f)),
            Type::Pointer(p) => {
                let p = self.from_ir(p)?;
                self.ptr(p)
            }
            Type::Array(e, n) => {
                let e = self.from_ir(e)?;
                self.intern(TyKind::Array(e, *n))
            }
            Type::Struct(id) => self.intern(TyKind::Struct(*id)),
            Type::Error => return None,
        })
    }

    /// A type as spelled in the library table (`const char *`, `unsigned long`, `FILE *`).
    pub fn from_spelling(&mut self, s: &str) -> Ty {
        let stars = s.matches('*').count();
        let words: Vec<&str> = s
            .split(|c: char| c == '*' || c.is_whitespace())
            .filter(|w| !w.is_empty() && !matches!(*w, "const" | "restrict" | "volatile"))
            .collect();
        let unsigned = words.contains(&"unsigned");
        let longs = words.iter().filter(|w| **w == "long").count();
        let int = |kind, signed| TyKind::Int(IntType { kind, signed });
        let base = if words.contains(&"double") {
            TyKind::Float(FloatKind::Double)
        } else if words.contains(&"float") {
            TyKind::Float(FloatKind::Float)
        } else if words.contains(&"char") {
            int(IntKind::Char, !unsigned)
        } else if words.contains(&"short") {
            int(IntKind::Short, !unsigned)
        } else if longs >= 2 {
            int(IntKind::LongLong, !unsigned)
        } else if longs == 1 {
            int(IntKind::Long, !unsigned)
        } else if words.contains(&"int") || unsigned || words.contains(&"signed") {
            int(IntKind::Int, !unsigned)
        } else if words.contains(&"void") {
            TyKind::Void
        } else if words.contains(&"_Bool") || words.contains(&"bool") {
            TyKind::Int(IntType::BOOL)
        } else if words.contains(&"size_t") {
            TyKind::Int(IntType::ULONG)
        } else {
            TyKind::Named(words.join(" "))
        };
        let mut t = self.intern(base);
        for _ in 0..stars {
            t = self.ptr(t);
        }
        t
    }

    pub fn is_int(&self, t: Ty) -> bool {
        matches!(self.kind(t), TyKind::Int(_))
    }
    pub fn is_float(&self, t: Ty) -> bool {
        matches!(self.kind(t), TyKind::Float(_))
    }
    pub fn is_arith(&self, t: Ty) -> bool {
        self.is_int(t) || self.is_float(t)
    }
    pub fn is_ptr(&self, t: Ty) -> bool {
        matches!(self.kind(t), TyKind::Ptr(_))
    }
    pub fn is_lv(&self, t: Ty) -> bool {
        matches!(self.kind(t), TyKind::Lv(_))
    }
    pub fn pointee(&self, t: Ty) -> Option<Ty> {
        match self.kind(t) {
            TyKind::Ptr(p) | TyKind::Array(p, _) => Some(*p),
            _ => None,
        }
    }
    /// An object type `*p` can produce: complete and not void.
    pub fn is_object(&self, t: Ty) -> bool {
        !matches!(self.kind(t), TyKind::Void | TyKind::Named(_) | TyKind::Lv(_))
    }

    /// The usual arithmetic conversions on two arithmetic value types.
    pub fn arith_result(&mut self, a: Ty, b: Ty) -> Ty {
        match (self.kind(a).clone(), self.kind(b).clone()) {
            (TyKind::Float(FloatKind::Double), _) | (_, TyKind::Float(FloatKind::Double)) => Types::DOUBLE,
            (TyKind::Float(_), _) | (_, TyKind::Float(_)) => self.intern(TyKind::Float(FloatKind::Float)),
            (TyKind::Int(x), TyKind::Int(y)) => {
                let promote = |t: IntType| if t.rank() < IntType::INT.rank() { IntType::INT } else { t };
                let (x, y) = (promote(x), promote(y));
                let r = if x.rank() != y.rank() {
                    if x.rank() > y.rank() { x } else { y }
                } else if !x.signed {
                    x
                } else {
                    y
                };
                self.intern(TyKind::Int(r))
            }
            _ => Types::INT,
        }
    }

    /// Can a value of type `from` be assigned (or passed) where `to` is expected without a
    /// compiler error? Both are value types.
    pub fn assignable(&self, to: Ty, from: Ty, null_constant: bool) -> bool {
        if to == from {
            return true;
        }
        match (self.kind(to), self.kind(from)) {
            (a, b) if is_arith_kind(a) && is_arith_kind(b) => true,
            (TyKind::Ptr(_), _) if null_constant => true,
            (TyKind::Ptr(a), TyKind::Ptr(b)) => {
                *a == Types::VOID
                    || *b == Types::VOID
                    || matches!((self.kind(*a), self.kind(*b)), (TyKind::Int(x), TyKind::Int(y)) if x.kind == y.kind)
            }
            (TyKind::Int(t), TyKind::Ptr(_)) => t.kind == IntKind::Bool,
            _ => false,
        }
    }

    /// C spelling, for casts and messages.
    pub fn name(&self, t: Ty) -> String {
        match self.kind(t) {
            TyKind::Void => "void".into(),
            TyKind::Int(i) => i.c_name(),
            TyKind::Float(FloatKind::Float) => "float".into(),
            TyKind::Float(FloatKind::Double) => "double".into(),
            TyKind::Ptr(p) => {
                let inner = self.name(*p);
                if inner.ends_with('*') { format!("{inner}*") } else { format!("{inner} *") }
            }
            TyKind::Array(e, Some(n)) => format!("{}[{n}]", self.name(*e)),
            TyKind::Array(e, None) => format!("{}[]", self.name(*e)),
            TyKind::Struct(id) => {
                format!("struct {}", self.struct_names.get(id.0 as usize).map(String::as_str).unwrap_or("?"))
            }
            TyKind::Named(n) => n.clone(),
            TyKind::Lv(inner) => self.name(*inner),
        }
    }
}

fn is_arith_kind(k: &TyKind) -> bool {
    matches!(k, TyKind::Int(_) | TyKind::Float(_))
}

//! Prints IR expressions back as C for runtime error messages (implicit conversions omitted).

use crate::ir::{BinOp, Callee, Expr, ExprKind, IncDec, LogicOp, Program, UnOp};

pub fn expr(p: &Program, e: &Expr) -> String {
    let mut s = String::new();
    write(p, e, &mut s, 0);
    s
}

fn prec(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Comma(..) => 1,
        ExprKind::Assign(..) | ExprKind::CompoundAssign { .. } => 2,
        ExprKind::Cond(..) => 3,
        ExprKind::Logical(LogicOp::Or, ..) => 4,
        ExprKind::Logical(LogicOp::And, ..) => 5,
        ExprKind::Binary(op, ..) => binprec(*op),
        ExprKind::Cast { implicit: true, expr } | ExprKind::Decay(expr) => prec(expr),
        ExprKind::Unary(..)
        | ExprKind::Cast { .. }
        | ExprKind::AddrOf(_)
        | ExprKind::Deref(_)
        | ExprKind::SizeOf { .. } => 14,
        ExprKind::IncDec(IncDec::PreInc | IncDec::PreDec, _) => 14,
        _ => 15,
    }
}

fn binprec(op: BinOp) -> u8 {
    match op {
        BinOp::BitOr => 6,
        BinOp::BitXor => 7,
        BinOp::BitAnd => 8,
        BinOp::Eq | BinOp::Ne => 9,
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => 10,
        BinOp::Shl | BinOp::Shr => 11,
        BinOp::Add | BinOp::Sub => 12,
        BinOp::Mul | BinOp::Div | BinOp::Rem => 13,
    }
}

fn write(p: &Program, e: &Expr, s: &mut String, min: u8) {
    let my = prec(e);
    let paren = my < min;
    if paren {
        s.push('(');
    }
    match &e.kind {
        ExprKind::Int(v) => s.push_str(&v.to_string()),
        ExprKind::Float(f) => s.push_str(&format!("{f:?}")),
        ExprKind::Str(b) => {
            s.push('"');
            for &c in b {
                match c {
                    b'\n' => s.push_str("\\n"),
                    b'\t' => s.push_str("\\t"),
                    b'"' => s.push_str("\\\""),
                    b'\\' => s.push_str("\\\\"),
                    c if (0x20..0x7f).contains(&c) => s.push(c as char),
                    c => s.push_str(&format!("\\{c:o}")),
                }
            }
            s.push('"');
        }
        ExprKind::Var(v) => s.push_str(&p.var(*v).name),
        ExprKind::Unary(op, a) => {
            s.push_str(match op {
                UnOp::Neg => "-",
                UnOp::BitNot => "~",
                UnOp::Not => "!",
            });
            write(p, a, s, 14);
        }
        ExprKind::Binary(op, a, b) => {
            let bp = binprec(*op);
            write(p, a, s, bp);
            s.push(' ');
            s.push_str(op.c_token());
            s.push(' ');
            write(p, b, s, bp + 1);
        }
        ExprKind::Logical(op, a, b) => {
            let bp = if *op == LogicOp::And { 5 } else { 4 };
            write(p, a, s, bp);
            s.push_str(if *op == LogicOp::And { " && " } else { " || " });
            write(p, b, s, bp + 1);
        }
        ExprKind::Assign(a, b) => {
            write(p, a, s, 14);
            s.push_str(" = ");
            write(p, b, s, 2);
        }
        ExprKind::CompoundAssign { op, lhs, rhs, .. } => {
            write(p, lhs, s, 14);
            s.push(' ');
            s.push_str(op.c_token());
            s.push_str("= ");
            write(p, rhs, s, 2);
        }
        ExprKind::IncDec(k, a) => match k {
            IncDec::PreInc => {
                s.push_str("++");
                write(p, a, s, 14)
            }
            IncDec::PreDec => {
                s.push_str("--");
                write(p, a, s, 14)
            }
            IncDec::PostInc => {
                write(p, a, s, 15);
                s.push_str("++")
            }
            IncDec::PostDec => {
                write(p, a, s, 15);
                s.push_str("--")
            }
        },
        ExprKind::Cond(c, a, b) => {
            write(p, c, s, 4);
            s.push_str(" ? ");
            write(p, a, s, 1);
            s.push_str(" : ");
            write(p, b, s, 3);
        }
        ExprKind::Cast { expr, implicit: true } | ExprKind::Decay(expr) => {
            if paren {
                // Precedence was computed through the conversion; print the operand plainly.
                write(p, expr, s, 0)
            } else {
                write(p, expr, s, min)
            }
        }
        ExprKind::Cast { expr, implicit: false } => {
            s.push('(');
            s.push_str(&p.type_name(&e.ty));
            s.push(')');
            write(p, expr, s, 14);
        }
        ExprKind::Call(callee, args) => {
            match callee {
                Callee::Func(f) => s.push_str(&p.func(*f).name),
                Callee::Builtin(b) => s.push_str(&format!("{b:?}").to_lowercase()),
            }
            s.push('(');
            for (i, a) in args.iter().enumerate() {
                if i > 0 {
                    s.push_str(", ");
                }
                write(p, a, s, 2);
            }
            s.push(')');
        }
        ExprKind::Index(a, i) | ExprKind::Row { array: a, index: i, .. } => {
            write(p, a, s, 15);
            s.push('[');
            write(p, i, s, 0);
            s.push(']');
        }
        ExprKind::Member { base, field, arrow } => {
            write(p, base, s, 15);
            s.push_str(if *arrow { "->" } else { "." });
            let sid = match (&base.ty, arrow) {
                (crate::ir::Type::Struct(id), false) => Some(*id),
                (crate::ir::Type::Pointer(t), true) => match &**t {
                    crate::ir::Type::Struct(id) => Some(*id),
                    _ => None,
                },
                _ => None,
            };
            match sid.and_then(|id| p.structs.get(id.0 as usize)).and_then(|d| d.fields.get(*field)) {
                Some(f) => s.push_str(&f.name),
                None => s.push('?'),
            }
        }
        ExprKind::AddrOf(a) => {
            s.push('&');
            write(p, a, s, 14);
        }
        ExprKind::Deref(a) => {
            s.push('*');
            write(p, a, s, 14);
        }
        ExprKind::SizeOf { text, .. } => {
            s.push_str("sizeof(");
            s.push_str(text);
            s.push(')');
        }
        ExprKind::Comma(a, b) => {
            write(p, a, s, 1);
            s.push_str(", ");
            write(p, b, s, 2);
        }
    }
    if paren {
        s.push(')');
    }
}

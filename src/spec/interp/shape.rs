//! Values drawn as a student draws them on paper, for the call records of
//! [`super::Limits::record_calls`]: a list as `1 → 2 → 3 → NULL`, a doubly linked list as
//! `1 ⇄ 2 ⇄ 3`, a tree as `5[left: 3, right: 8]`, a string as `"abc"`, an array as
//! `[1, 2, 3]`.
//!
//! A drawing names no address: nodes are numbered in the order they are reached, so two runs
//! of different programs (the student's and the reference) draw equal structures equally, and
//! comparing drawings compares the structures. Sharing and cycles show as "node k" (the k-th
//! node reached). A drawing is cut after [`MAX_NODES`] nodes or [`MAX_ELEMENTS`] elements and
//! says so (`…`).

use super::machine::Val;
use super::memory::{self, Memory};
use crate::ir::{FloatKind, IntKind, Program, StructId, Type};

/// Nodes of one linked structure drawn before the drawing is cut.
const MAX_NODES: usize = 200;
/// Elements of an array or characters of a string drawn before the drawing is cut.
const MAX_ELEMENTS: usize = 64;
/// Pointers followed into other pointers (`Node **`, a struct holding a `char *`).
const MAX_DEPTH: u32 = 4;

pub(super) struct Drawer<'a> {
    pub prog: &'a Program,
    pub mem: &'a Memory,
}

impl Drawer<'_> {
    /// A value of type `ty` (for arrays and structs, `v` is their address).
    pub fn value(&self, v: Val, ty: &Type) -> String {
        self.value_at_depth(v, ty, 0)
    }

    fn value_at_depth(&self, v: Val, ty: &Type, depth: u32) -> String {
        match (v, ty) {
            (Val::U, _) => "(unset)".into(),
            (v, Type::Int(t)) if t.kind == IntKind::Char => char_shown(v.i()),
            (v, Type::Int(_)) => v.i().to_string(),
            (v, Type::Float(_)) => v.f().to_string(),
            (v, Type::Pointer(to)) => self.pointer(v.i(), to, depth),
            (v, Type::Array(elem, _)) => self.elements(v.i(), elem, depth),
            (v, Type::Struct(id)) => self.struct_value(v.i(), *id, depth),
            _ => "?".into(),
        }
    }

    /// What `p`, of type pointer to `to`, points to.
    fn pointer(&self, p: i64, to: &Type, depth: u32) -> String {
        if p == memory::NULL {
            return "NULL".into();
        }
        let Some(block) = self.mem.blocks.get(memory::block_of(p) as usize) else {
            return "an invalid pointer".into();
        };
        if !block.alive {
            return "a pointer to freed memory".into();
        }
        if depth >= MAX_DEPTH {
            return "…".into();
        }
        match to {
            Type::Struct(id) => self.linked(p, *id, depth),
            Type::Int(t) if t.kind == IntKind::Char => self.string(p),
            Type::Int(_) | Type::Float(_) => {
                let left = self.mem.block_size(memory::block_of(p)) as i64 - memory::offset_of(p);
                if left == self.prog.size_of(to) as i64 {
                    format!("→ {}", self.scalar_at(p, to))
                } else {
                    self.elements(p, to, depth)
                }
            }
            Type::Pointer(inner) => match self.mem.load(p, 8) {
                Ok(q) => format!("&({})", self.pointer(q as i64, inner, depth + 1)),
                Err(_) => "&((unset))".into(),
            },
            _ => "a pointer".into(),
        }
    }

    /// The scalar of type `ty` stored at `p` ("(unset)" when it has no value).
    fn scalar_at(&self, p: i64, ty: &Type) -> String {
        let size = self.prog.size_of(ty);
        let Ok(bits) = self.mem.load(p, size) else { return "(unset)".into() };
        let v = match ty {
            Type::Int(t) => Val::I(t.wrap(bits as i64)),
            Type::Float(FloatKind::Float) => Val::F(f32::from_bits(bits as u32) as f64),
            Type::Float(FloatKind::Double) => Val::F(f64::from_bits(bits)),
            _ => Val::I(bits as i64),
        };
        self.value(v, ty)
    }

    /// The value of type `ty` stored at `p`, arrays and structs included.
    pub fn stored(&self, p: i64, ty: &Type) -> String {
        self.stored_at_depth(p, ty, 0)
    }

    fn stored_at_depth(&self, p: i64, ty: &Type, depth: u32) -> String {
        match ty {
            Type::Array(elem, _) if matches!(**elem, Type::Int(t) if t.kind == IntKind::Char) => self.string(p),
            Type::Array(elem, _) => self.elements(p, elem, depth),
            Type::Struct(id) => self.struct_value(p, *id, depth),
            Type::Pointer(to) => match self.mem.load(p, 8) {
                Ok(q) => self.pointer(q as i64, to, depth + 1),
                Err(_) => "(unset)".into(),
            },
            _ => self.scalar_at(p, ty),
        }
    }

    /// The elements from `p` to the end of its block: `[1, 2, 3]`.
    fn elements(&self, p: i64, elem: &Type, depth: u32) -> String {
        let size = self.prog.size_of(elem).max(1) as i64;
        let left = self.mem.block_size(memory::block_of(p)) as i64 - memory::offset_of(p);
        let n = (left / size).max(0) as usize;
        let mut items: Vec<String> = (0..n.min(MAX_ELEMENTS))
            .map(|i| self.stored_at_depth(memory::ptr_add(p, i as i64 * size), elem, depth))
            .collect();
        if n > MAX_ELEMENTS {
            items.push("…".into());
        }
        format!("[{}]", items.join(", "))
    }

    /// The string at `p`: `"abc"`, with a note when no `'\0'` ends it inside its block.
    fn string(&self, p: i64) -> String {
        let mut text = String::from("\"");
        for i in 0..=MAX_ELEMENTS as i64 {
            match self.mem.load_byte(memory::ptr_add(p, i)) {
                Ok(0) => return text + "\"",
                Ok(_) if i == MAX_ELEMENTS as i64 => return text + "…\"",
                Ok(b) => text.push_str(&escaped(b)),
                // Bytes never written end the string as the block's end does: no `'\0'`.
                Err(memory::Fault::Uninit { .. }) if i == 0 => return "(unset)".into(),
                Err(_) => return text + "\" (no '\\0' at its end)",
            }
        }
        text + "\""
    }

    /// A struct that is not a node of a linked structure: `{x: 1, y: 2}`.
    fn struct_value(&self, p: i64, id: StructId, depth: u32) -> String {
        let def = self.prog.struct_def(id);
        let fields: Vec<String> = def
            .fields
            .iter()
            .map(|f| format!("{}: {}", f.name, self.stored_at_depth(memory::ptr_add(p, f.offset as i64), &f.ty, depth)))
            .collect();
        format!("{{{}}}", fields.join(", "))
    }

    /// The linked structure reached from `p`, a pointer to a `struct id`: a chain when the
    /// struct has one pointer to its own type, a doubly linked chain when it has two and they
    /// are each other's inverse, a tree-like drawing otherwise.
    fn linked(&self, p: i64, id: StructId, depth: u32) -> String {
        let def = self.prog.struct_def(id);
        let links: Vec<usize> = (0..def.fields.len())
            .filter(|&i| matches!(&def.fields[i].ty, Type::Pointer(to) if **to == Type::Struct(id)))
            .collect();
        match links[..] {
            [] => self.struct_value(p, id, depth),
            [next] => self.chain(p, id, next, depth),
            [a, b] => self
                .doubly_linked(p, id, a, b, depth)
                .or_else(|| self.doubly_linked(p, id, b, a, depth))
                .unwrap_or_else(|| self.tree(p, id, &links, depth)),
            _ => self.tree(p, id, &links, depth),
        }
    }

    /// The pointer stored in field `field` of the node at `p` (`None`: no value).
    fn link(&self, p: i64, id: StructId, field: usize) -> Option<i64> {
        let offset = self.prog.struct_def(id).fields[field].offset as i64;
        self.mem.load(memory::ptr_add(p, offset), 8).ok().map(|q| q as i64)
    }

    /// Whether `p` points to a live node (not null, not freed).
    fn live(&self, p: i64) -> bool {
        p != memory::NULL && self.mem.blocks.get(memory::block_of(p) as usize).is_some_and(|b| b.alive)
    }

    /// A node's own data: its fields other than the links, `•` when there are none.
    fn label(&self, p: i64, id: StructId, links: &[usize], depth: u32) -> String {
        let def = self.prog.struct_def(id);
        let data: Vec<String> = (0..def.fields.len())
            .filter(|i| !links.contains(i))
            .map(|i| self.stored_at_depth(memory::ptr_add(p, def.fields[i].offset as i64), &def.fields[i].ty, depth))
            .collect();
        match data.len() {
            0 => "•".into(),
            1 => data.into_iter().next().unwrap_or_default(),
            _ => format!("({})", data.join(", ")),
        }
    }

    /// `1 → 2 → 3 → NULL`; a cycle ends in "back to node k".
    fn chain(&self, p: i64, id: StructId, next: usize, depth: u32) -> String {
        let mut seen: Vec<i64> = Vec::new();
        let mut out = String::new();
        let mut at = p;
        loop {
            if at == memory::NULL {
                return out + "NULL";
            }
            if let Some(k) = seen.iter().position(|&q| q == at) {
                return out + &format!("back to node {}", k + 1);
            }
            if !self.live(at) {
                return out + "a pointer to freed memory";
            }
            if seen.len() == MAX_NODES {
                return out + "…";
            }
            seen.push(at);
            out += &self.label(at, id, &[next], depth);
            out += " → ";
            match self.link(at, id, next) {
                Some(q) => at = q,
                None => return out + "(unset)",
            }
        }
    }

    /// `1 ⇄ 2 ⇄ 3` when following `next` from `p` visits nodes whose `prev` is the node
    /// before (the first's is NULL, or the last node in a circular list).
    fn doubly_linked(&self, p: i64, id: StructId, next: usize, prev: usize, depth: u32) -> Option<String> {
        let mut nodes: Vec<i64> = Vec::new();
        let mut at = p;
        let mut circular = false;
        while at != memory::NULL {
            if nodes.contains(&at) {
                circular = at == p;
                if !circular {
                    return None;
                }
                break;
            }
            if !self.live(at) || nodes.len() == MAX_NODES {
                return None;
            }
            nodes.push(at);
            at = self.link(at, id, next)?;
        }
        for (i, &node) in nodes.iter().enumerate() {
            let expected = match i {
                0 if circular => *nodes.last()?,
                0 => memory::NULL,
                _ => nodes[i - 1],
            };
            if self.link(node, id, prev)? != expected {
                return None;
            }
        }
        let labels: Vec<String> = nodes.iter().map(|&n| self.label(n, id, &[next, prev], depth)).collect();
        let end = if circular { " ⇄ back to node 1" } else { "" };
        Some(format!("{}{end}", labels.join(" ⇄ ")))
    }

    /// `5[left: 3, right: 8[left: 7]]`: each node's data, then its non-null links; a node
    /// reached again is "node k".
    fn tree(&self, p: i64, id: StructId, links: &[usize], depth: u32) -> String {
        let mut seen = Vec::new();
        self.subtree(p, id, links, depth, &mut seen)
    }

    fn subtree(&self, p: i64, id: StructId, links: &[usize], depth: u32, seen: &mut Vec<i64>) -> String {
        if p == memory::NULL {
            return "NULL".into();
        }
        if let Some(k) = seen.iter().position(|&q| q == p) {
            return format!("node {}", k + 1);
        }
        if !self.live(p) {
            return "a pointer to freed memory".into();
        }
        if seen.len() == MAX_NODES {
            return "…".into();
        }
        seen.push(p);
        let def = self.prog.struct_def(id);
        let mut out = self.label(p, id, links, depth);
        let mut children = Vec::new();
        for &l in links {
            match self.link(p, id, l) {
                Some(memory::NULL) => {}
                Some(q) => {
                    children.push(format!("{}: {}", def.fields[l].name, self.subtree(q, id, links, depth, seen)))
                }
                None => children.push(format!("{}: (unset)", def.fields[l].name)),
            }
        }
        if !children.is_empty() {
            out += &format!("[{}]", children.join(", "));
        }
        out
    }
}

fn char_shown(c: i64) -> String {
    match u8::try_from(c) {
        Ok(b) => format!("'{}'", escaped(b)),
        Err(_) => c.to_string(),
    }
}

fn escaped(b: u8) -> String {
    match b {
        b'\n' => "\\n".into(),
        b'\t' => "\\t".into(),
        b'"' => "\\\"".into(),
        b'\\' => "\\\\".into(),
        0x20..=0x7e => (b as char).to_string(),
        _ => format!("\\x{b:02x}"),
    }
}

#[cfg(test)]
mod tests {
    use crate::cancel::Cancel;
    use crate::spec::interp::{self, Limits};

    /// The drawings of the first parameter of each recorded call of `show`, as it was given.
    fn drawn(src: &str) -> Vec<String> {
        let lowered = crate::syntax::lower::lower_source(src);
        let limits = Limits { record_calls: true, ..Limits::default() };
        let run = interp::run(&lowered.program, "main", b"", &limits, &Cancel::new());
        assert_eq!(run.error, None);
        let show = lowered.program.func_by_name("show").expect("a function `show`");
        run.calls.iter().filter(|c| c.func == show).map(|c| c.before.params[0].1.clone()).collect()
    }

    #[test]
    fn a_doubly_linked_list_is_a_chain_both_ways_until_a_back_link_is_wrong() {
        let src = r#"
            #include <stdlib.h>
            struct d { struct d *prev; int v; struct d *next; };
            void show(struct d *l) {}
            int main(void) {
                struct d *a = malloc(sizeof *a), *b = malloc(sizeof *b);
                a->v = 1; b->v = 2; a->prev = NULL; a->next = b; b->prev = a; b->next = NULL;
                show(a);
                b->prev = b;
                show(a);
                a->prev = b; b->prev = a; b->next = a;
                show(a);
                return 0;
            }"#;
        assert_eq!(
            drawn(src),
            vec!["1 ⇄ 2".to_string(), "1[next: 2[prev: node 2]]".to_string(), "1 ⇄ 2 ⇄ back to node 1".to_string()]
        );
    }

    #[test]
    fn trees_strings_arrays_and_cycles() {
        let src = r#"
            #include <stdlib.h>
            #include <string.h>
            struct t { int key; struct t *left, *right; };
            struct n { int v; struct n *next; };
            void show(void *p) {}
            void show_tree(struct t *p) {}
            int main(void) {
                struct t *r = calloc(1, sizeof *r), *l = calloc(1, sizeof *l);
                r->key = 5; l->key = 3; r->left = l;
                show_tree(r);
                return 0;
            }"#;
        let lowered = crate::syntax::lower::lower_source(src);
        let limits = Limits { record_calls: true, ..Limits::default() };
        let run = interp::run(&lowered.program, "main", b"", &limits, &Cancel::new());
        assert_eq!(run.calls[0].before.params[0].1, "5[left: 3]");

        let src = r#"
            #include <stdlib.h>
            struct n { int v; struct n *next; };
            void show(struct n *p) {}
            int main(void) {
                struct n *a = malloc(sizeof *a), *b = malloc(sizeof *b);
                a->v = 1; a->next = b; b->v = 2; b->next = a;
                show(a);
                b->next = NULL;
                free(b);
                show(a);
                return 0;
            }"#;
        assert_eq!(drawn(src), vec!["1 → 2 → back to node 1", "1 → a pointer to freed memory"]);

        let src = r#"
            #include <stdlib.h>
            void show(char *s) {}
            int main(void) {
                char *s = malloc(3);
                s[0] = 'h'; s[1] = 'i';
                show("a\"b\n");
                show(s);
                s[2] = 0;
                show(s);
                char unset[4];
                show(unset);
                return 0;
            }"#;
        assert_eq!(drawn(src), vec![r#""a\"b\n""#, r#""hi" (no '\0' at its end)"#, r#""hi""#, "(unset)"]);

        let src = r#"
            void show(int *a) {}
            int main(void) {
                int a[3] = {1, 2, 3}, x = 7, *p = &x;
                show(a);
                show(a + 2);
                show(p);
                return 0;
            }"#;
        assert_eq!(drawn(src), vec!["[1, 2, 3]", "→ 3", "→ 7"]);
    }
}

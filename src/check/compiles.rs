//! A logic repair the compiler accepts. Under `-Wall -Werror` a proved repair can still break
//! the build: replacing `printf("%d", s)` by the reference's `time % 60` leaves `s` set but
//! never read, and gcc refuses the file; a repair that calls `strcspn` needs `<string.h>`,
//! without which gcc 14 refuses the call whatever the flags. Each repair's text is compiled
//! again by mend's front end under the course's flags; what it reports that the student's text
//! did not is fixed within the repair where the fix changes nothing the program does (an
//! `#include`, deleting a variable nothing reads, braces, parentheses: [`keeps_behaviour`]),
//! so the guarantee carries over unchanged. Anything left is said in the repair's explanation.

use crate::ir::rewrite::Rewrite;
use crate::ir::{Diagnostic, Repair, Severity, Span, TextEdit, apply_edits};
use crate::syntax::course_rules::{self, Course};
use crate::syntax::{self, lower};

/// Whether the front end's fix of a diagnostic with `code` leaves what the program does
/// unchanged: an `#include` the repair's new call needs (gcc 14 rejects the call without it,
/// whatever the flags), `(int)(…)` around a `long` that `%d` or `%c` prints (what is printed
/// is its low bits either way), and the course's behaviour-keeping fixes.
fn keeps_behaviour(code: &str) -> bool {
    code == lower::MISSING_INCLUDE || code == lower::FORMAT_WIDTH || course_rules::keeps_behaviour(code)
}

/// Rounds of fixes per repair: deleting `s` can leave `m`, read only by `s`'s assignment,
/// unused in turn.
const ROUNDS: usize = 4;

/// What the course's compiler reports for `text`, with the course's fixes; `None` when the
/// text does not parse.
fn reported(text: &str, course: &Course) -> Option<(Vec<Diagnostic>, Vec<Repair>)> {
    let tree = syntax::parse(text, None);
    if !syntax::syntax_diagnostics(&tree, text).0.is_empty() {
        return None;
    }
    let mut lowered = lower::lower(&tree, text);
    let (_, course_diags, course_fixes) = super::compile_errors(&tree, text, &mut lowered, &[], course);
    let mut diagnostics: Vec<Diagnostic> = lowered.diagnostics;
    diagnostics.extend(course_diags);
    diagnostics.retain(|d| matches!(d.severity, Severity::Error | Severity::Warning));
    let mut fixes = lowered.repairs;
    fixes.extend(course_fixes);
    Some((diagnostics, fixes))
}

/// The diagnostics of `after` that `before` does not have (the same code and words, counted).
fn new_in(before: &[Diagnostic], after: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let mut old: Vec<(&str, &str)> = before.iter().map(|d| (d.code, d.message.as_str())).collect();
    after
        .into_iter()
        .filter(|d| match old.iter().position(|o| *o == (d.code, d.message.as_str())) {
            Some(i) => {
                old.swap_remove(i);
                false
            }
            None => true,
        })
        .collect()
}

/// The student's text as the compiler sees it, computed once per analysis: every published
/// report's repairs are compared with it.
pub(super) struct Baseline<'t> {
    text: &'t str,
    /// `None`: the text is too large to compile again per repair, or does not parse.
    before: Option<Vec<Diagnostic>>,
}

impl<'t> Baseline<'t> {
    pub(super) fn new(text: &'t str, course: &Course) -> Baseline<'t> {
        let before = (text.len() <= super::CHECKED_FIX_BYTES).then(|| reported(text, course)).flatten();
        Baseline { text, before: before.map(|(diagnostics, _)| diagnostics) }
    }

    /// Each behaviour repair made to compile under `course`'s flags where a fix that keeps its
    /// behaviour exists, else told what the compiler would say.
    pub(super) fn under_course_flags(&self, repairs: &mut [Repair], course: &Course) {
        let Some(before) = &self.before else { return };
        for repair in repairs.iter_mut().filter(|r| r.guarantee.strength() > 0) {
            fix_one(repair, self.text, before, course);
        }
    }
}

/// [`Baseline::under_course_flags`] for one report of `text` (the student's).
#[cfg(test)]
fn under_course_flags(repairs: &mut [Repair], text: &str, course: &Course) {
    Baseline::new(text, course).under_course_flags(repairs, course);
}

fn fix_one(repair: &mut Repair, text: &str, before: &[Diagnostic], course: &Course) {
    // The repair's edits with the fixes folded in so far, and what is new in their text.
    let mut edits = repair.edits.clone();
    let Some((mut left, mut fixes)) = new_diagnostics(text, &edits, before, course) else { return };
    // What the folded fixes do: variables deleted, and the other fixes' titles.
    let (mut unused, mut done): (Vec<String>, Vec<String>) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let patched = apply_edits(text, &edits);
        let (mut extra, mut names, mut titles) = (Vec::<TextEdit>::new(), Vec::new(), Vec::new());
        for d in left.iter().filter(|d| keeps_behaviour(d.code)) {
            let Some(fix) = fixes.iter().find(|f| f.fixes.contains(&d.span)) else { continue };
            if fix.edits.iter().any(|e| extra.iter().any(|o| o.span.touches(e.span))) {
                continue;
            }
            extra.extend(fix.edits.iter().cloned());
            if course_rules::deletes_variable(d.code) {
                // The diagnostic is on the variable's name.
                names.push(format!("`{}`", patched.get(d.span.range()).unwrap_or_default()));
            } else {
                titles.push(lowercase_first(&fix.title));
            }
        }
        if extra.is_empty() {
            break;
        }
        extra.sort_by_key(|e| (e.span.start, e.span.end));
        let folded = Rewrite::new(text, edits.clone()).compose(text, &extra);
        // A fold whose text no longer parses is not taken.
        let Some((now, now_fixes)) = new_diagnostics(text, &folded, before, course) else { break };
        (edits, left, fixes) = (folded, now, now_fixes);
        unused.extend(names);
        done.extend(titles);
    }
    let flags = &course.flags;
    let compiler = if *flags == Default::default() {
        "the compiler".to_string()
    } else {
        format!("the course's compiler ({flags})")
    };
    let mut also = Vec::new();
    if !unused.is_empty() {
        let names = crate::ir::words_list(&unused);
        let verb = if flags.werror { "rejects" } else { "warns about" };
        repair.explanation = format!(
            "{} It also deletes {names}, which the change leaves unused: {compiler} {verb} a variable nothing reads.",
            repair.explanation
        );
        also.push(format!("delete {names} (now unused)"));
    }
    if !done.is_empty() {
        done.dedup();
        repair.explanation =
            format!("{} It also does what {compiler} then asks for: {}.", repair.explanation, done.join("; "));
        also.extend(done);
    }
    if !also.is_empty() {
        repair.edits = edits;
        // The editor shows only the title: it says what else the click changes.
        repair.title = format!("{}; also {}", repair.title, also.join("; "));
    }
    if let Some(first) = left.first() {
        let line = line_of(&apply_edits(text, &repair.edits), first.span);
        repair.explanation = format!(
            "{} After it {compiler} would also report, on line {line}: {}.",
            repair.explanation,
            first.message.trim_end_matches('.')
        );
    }
}

/// What the compiler reports for `text` patched by `edits` that it does not report for
/// `text` (`before`), with the fixes of the patched text; `None` when it does not parse.
fn new_diagnostics(
    text: &str,
    edits: &[TextEdit],
    before: &[Diagnostic],
    course: &Course,
) -> Option<(Vec<Diagnostic>, Vec<Repair>)> {
    reported(&apply_edits(text, edits), course).map(|(after, fixes)| (new_in(before, after), fixes))
}

fn lowercase_first(s: &str) -> String {
    let mut chars = s.chars();
    chars.next().map_or_else(String::new, |c| c.to_lowercase().chain(chars).collect())
}

fn line_of(text: &str, span: Span) -> usize {
    text[..(span.start as usize).min(text.len())].matches('\n').count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Guarantee;
    use crate::syntax::flags::CompilerFlags;

    const STUDENT: &str = "#include <stdio.h>\nint main(void) {\n    int t, s;\n    scanf(\"%d\", &t);\n    s = t / 60;\n    printf(\"%d\\n\", s);\n    return 0;\n}\n";

    fn course(flags: &str) -> Course {
        Course { flags: CompilerFlags::parse(flags).unwrap(), ..Course::default() }
    }

    /// A proved repair of `STUDENT` that prints `t % 60` instead of `s`.
    fn repair() -> Repair {
        let at = STUDENT.find("s);").unwrap();
        Repair {
            title: "Fix (verified): `s` → `t % 60`".into(),
            engine: "verified",
            guarantee: Guarantee::Verified,
            edits: vec![TextEdit { span: Span::new(at, at + 1), new_text: "t % 60".into() }],
            places: Vec::new(),
            explanation: "Changes 1 place.".into(),
            details: String::new(),
            fixes: Vec::new(),
            reached: Vec::new(),
        }
    }

    #[test]
    fn a_variable_the_repair_leaves_unread_is_deleted_under_werror() {
        let mut repairs = vec![repair()];
        under_course_flags(&mut repairs, STUDENT, &course("-Wall -Werror"));
        let fixed = apply_edits(STUDENT, &repairs[0].edits);
        assert_eq!(
            fixed,
            "#include <stdio.h>\nint main(void) {\n    int t;\n    scanf(\"%d\", &t);\n    printf(\"%d\\n\", t % 60);\n    return 0;\n}\n"
        );
        assert!(
            repairs[0].explanation.contains("It also deletes `s`, which the change leaves unused"),
            "{}",
            repairs[0].explanation
        );
        assert_eq!(repairs[0].title, "Fix (verified): `s` → `t % 60`; also delete `s` (now unused)");
    }

    #[test]
    fn without_flags_or_for_a_type_fix_nothing_changes() {
        let mut repairs = vec![repair()];
        under_course_flags(&mut repairs, STUDENT, &Course::default());
        assert_eq!(repairs[0].edits, repair().edits);
        let mut typed = vec![Repair { guarantee: Guarantee::WellTyped, ..repair() }];
        under_course_flags(&mut typed, STUDENT, &course("-Wall -Werror"));
        assert_eq!(typed[0].edits, repair().edits);
    }

    #[test]
    fn a_library_call_the_repair_adds_brings_its_include_whatever_the_flags() {
        let at = STUDENT.find("t / 60").unwrap();
        let mut repairs = vec![Repair {
            edits: vec![TextEdit { span: Span::new(at, at + 6), new_text: "abs(t) / 60".into() }],
            ..repair()
        }];
        under_course_flags(&mut repairs, STUDENT, &Course::default());
        let fixed = apply_edits(STUDENT, &repairs[0].edits);
        assert!(fixed.starts_with("#include <stdio.h>\n#include <stdlib.h>\n"), "{fixed}");
        assert!(
            repairs[0].explanation.contains("It also does what the compiler then asks for: add `#include <stdlib.h>`")
        );
    }

    #[test]
    fn a_long_the_repair_prints_with_percent_c_is_cast_to_the_int_it_prints() {
        let text = "#include <stdio.h>\nint main(void) {\n    int t;\n    scanf(\"%d\", &t);\n    printf(\"%c\\n\", t);\n    return 0;\n}\n";
        let at = text.find("t);\n    return").unwrap();
        let mut repairs = vec![Repair {
            edits: vec![TextEdit { span: Span::new(at, at + 1), new_text: "(long)t + (long)32".into() }],
            ..repair()
        }];
        under_course_flags(&mut repairs, text, &course("-Wall -Werror"));
        let fixed = apply_edits(text, &repairs[0].edits);
        assert!(fixed.contains("printf(\"%c\\n\", (int)((long)t + (long)32));"), "{fixed}");
        assert!(repairs[0].title.ends_with("; also write `(int)((long)t + (long)32)`"), "{}", repairs[0].title);
    }

    #[test]
    fn what_has_no_behaviour_keeping_fix_is_said() {
        // `if (t > 0) ;`: gcc's fix (delete the `;`) would change what the program does.
        let at = STUDENT.find("printf").unwrap();
        let mut repairs = vec![Repair {
            edits: vec![TextEdit { span: Span::new(at, at), new_text: "if (t > 0) ;\n    ".into() }],
            ..repair()
        }];
        under_course_flags(&mut repairs, STUDENT, &course("-Wall -Wextra -Werror"));
        assert_eq!(repairs[0].edits.len(), 1);
        assert!(
            repairs[0]
                .explanation
                .contains("the course's compiler (-Wall -Wextra -Werror) would also report, on line 6"),
            "{}",
            repairs[0].explanation
        );
    }

    #[test]
    fn a_diagnostic_the_student_already_had_is_not_new() {
        // `u` is unused before the repair too: not the repair's doing, left alone.
        let text = STUDENT.replace("int t, s;", "int t, s, u;");
        let at = text.find("s);").unwrap();
        let mut repairs = vec![Repair {
            edits: vec![TextEdit { span: Span::new(at, at + 1), new_text: "t % 60".into() }],
            ..repair()
        }];
        under_course_flags(&mut repairs, &text, &course("-Wall -Werror"));
        let fixed = apply_edits(&text, &repairs[0].edits);
        assert!(fixed.contains("int t, u;"), "{fixed}");
    }
}

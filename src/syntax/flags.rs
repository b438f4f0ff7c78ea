//! The compiler flags a course builds with (`flags = "-Wall -Wextra -Werror -ansi -pedantic"`
//! in mend.toml): which C standard, which warnings, and whether warnings are errors. They
//! decide what the front end reports beyond plain C errors (see `syntax::course_rules`): a
//! course that compiles with `-ansi` rejects `for (int i = 0; …)`, one with `-Wall -Werror`
//! rejects an unused variable. With no flags mend reports what gcc does by default.

use std::fmt;

/// The C standard of `-std=` / `-ansi`; only what changes a diagnostic is kept.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Standard {
    /// C89/C90 (`-ansi`, `-std=c89`, `-std=c90`, `-std=gnu89`, …).
    C90,
    C99,
    /// C11 and later: gcc's default (`gnu17`).
    #[default]
    C11,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CompilerFlags {
    pub standard: Standard,
    /// `-std=gnu…`: GNU extensions (in C90, `//` comments) stay allowed unless `-pedantic`.
    pub gnu: bool,
    /// `-pedantic` / `-pedantic-errors`: ISO's rules of the standard are warnings (errors).
    pub pedantic: bool,
    pub pedantic_errors: bool,
    /// `-Wall`.
    pub wall: bool,
    /// `-Wextra` (or `-W`).
    pub wextra: bool,
    /// `-Werror`: every warning is an error.
    pub werror: bool,
    /// The text as written (shown in messages and the bench).
    pub text: String,
}

impl CompilerFlags {
    /// Reads a gcc/clang command-line fragment. Flags that change no diagnostic (`-O2`, `-g`,
    /// `-lm`, `-o x`) are accepted and ignored; an unknown `-std=` is an error, because it
    /// would silently change what is reported.
    pub fn parse(text: &str) -> Result<CompilerFlags, String> {
        let mut flags =
            CompilerFlags { text: text.split_whitespace().collect::<Vec<_>>().join(" "), ..Default::default() };
        for word in text.split_whitespace() {
            match word {
                "-ansi" => flags.standard = Standard::C90,
                "-pedantic" | "-Wpedantic" => flags.pedantic = true,
                "-pedantic-errors" => {
                    flags.pedantic = true;
                    flags.pedantic_errors = true;
                }
                "-Wall" => flags.wall = true,
                "-Wextra" | "-W" => flags.wextra = true,
                "-Werror" => flags.werror = true,
                _ => {
                    if let Some(std) = word.strip_prefix("-std=") {
                        let (gnu, version) = match std.strip_prefix("gnu") {
                            Some(v) => (true, v),
                            None => {
                                (false, std.strip_prefix("c").or_else(|| std.strip_prefix("iso9899:")).unwrap_or(std))
                            }
                        };
                        flags.gnu = gnu;
                        flags.standard = match version {
                            "89" | "90" | "1990" | "199409" => Standard::C90,
                            "99" | "9x" | "1999" => Standard::C99,
                            "11" | "1x" | "2011" | "17" | "18" | "2017" | "2018" | "2x" | "23" | "2y" => Standard::C11,
                            _ => {
                                return Err(format!(
                                    "unknown C standard `{word}` (known: c89, c90, c99, c11, c17, c23 and their gnu forms)"
                                ));
                            }
                        };
                    }
                }
            }
        }
        Ok(flags)
    }

    pub fn is_c90(&self) -> bool {
        self.standard == Standard::C90
    }
}

impl fmt::Display for CompilerFlags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_course_line() {
        let f = CompilerFlags::parse("-Wall -Wextra -Werror -ansi -pedantic -O2 -o prog").unwrap();
        assert!(f.is_c90() && f.wall && f.wextra && f.werror && f.pedantic && !f.pedantic_errors);
        assert_eq!(f.to_string(), "-Wall -Wextra -Werror -ansi -pedantic -O2 -o prog");
        assert_eq!(CompilerFlags::parse("-std=gnu99").unwrap().standard, Standard::C99);
        assert_eq!(CompilerFlags::parse("-std=iso9899:1990").unwrap().standard, Standard::C90);
        assert_eq!(CompilerFlags::parse("").unwrap(), CompilerFlags::default());
        assert!(CompilerFlags::parse("-std=c77").is_err());
    }
}

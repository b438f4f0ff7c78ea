//! The C library functions and macros the front end knows, with their signatures.

use crate::ir::{Builtin, FloatKind, IntType, MathFn, Type};

/// Parameter list of a builtin: fixed parameters, or a format-checked variadic call.
pub enum Params {
    Fixed(Vec<Type>),
    /// `printf(fmt, ...)` / `scanf(fmt, ...)`: the format literal decides the rest.
    Format {
        scanf: bool,
    },
}

pub struct Signature {
    pub builtin: Builtin,
    pub ret: Type,
    pub params: Params,
    /// The header a student should include (for messages).
    pub header: &'static str,
}

fn char_ptr() -> Type {
    Type::ptr(Type::CHAR)
}

fn void_ptr() -> Type {
    Type::ptr(Type::Void)
}

const SIZE_T: Type = Type::Int(IntType::ULONG);

/// The builtin called `name`, if it is one. Nondeterministic-value conventions
/// (`nondet_int`, `__VERIFIER_nondet_uint`, ...) return the type named in the suffix.
pub fn lookup(name: &str) -> Option<Signature> {
    use Builtin as B;
    let int = Type::INT;
    let fixed = |b: Builtin, ret: Type, params: Vec<Type>, header: &'static str| Signature {
        builtin: b,
        ret,
        params: Params::Fixed(params),
        header,
    };
    Some(match name {
        "printf" => {
            Signature { builtin: B::Printf, ret: int, params: Params::Format { scanf: false }, header: "stdio.h" }
        }
        "scanf" => Signature { builtin: B::Scanf, ret: int, params: Params::Format { scanf: true }, header: "stdio.h" },
        "getchar" => fixed(B::Getchar, int, vec![], "stdio.h"),
        "putchar" => fixed(B::Putchar, int.clone(), vec![int], "stdio.h"),
        "puts" => fixed(B::Puts, int, vec![char_ptr()], "stdio.h"),
        "gets" => fixed(B::Gets, char_ptr(), vec![char_ptr()], "stdio.h"),
        "fgets" => fixed(B::Fgets, char_ptr(), vec![char_ptr(), int, void_ptr()], "stdio.h"),
        "strlen" => fixed(B::Strlen, SIZE_T, vec![char_ptr()], "string.h"),
        "strcmp" => fixed(B::Strcmp, int, vec![char_ptr(), char_ptr()], "string.h"),
        "strcpy" => fixed(B::Strcpy, char_ptr(), vec![char_ptr(), char_ptr()], "string.h"),
        "strcat" => fixed(B::Strcat, char_ptr(), vec![char_ptr(), char_ptr()], "string.h"),
        "strncpy" => fixed(B::Strncpy, char_ptr(), vec![char_ptr(), char_ptr(), SIZE_T], "string.h"),
        "strncat" => fixed(B::Strncat, char_ptr(), vec![char_ptr(), char_ptr(), SIZE_T], "string.h"),
        "strncmp" => fixed(B::Strncmp, int.clone(), vec![char_ptr(), char_ptr(), SIZE_T], "string.h"),
        "strchr" => fixed(B::Strchr, char_ptr(), vec![char_ptr(), int.clone()], "string.h"),
        "strrchr" => fixed(B::Strrchr, char_ptr(), vec![char_ptr(), int.clone()], "string.h"),
        "strstr" => fixed(B::Strstr, char_ptr(), vec![char_ptr(), char_ptr()], "string.h"),
        "strspn" => fixed(B::Strspn, SIZE_T, vec![char_ptr(), char_ptr()], "string.h"),
        "strcspn" => fixed(B::Strcspn, SIZE_T, vec![char_ptr(), char_ptr()], "string.h"),
        "strdup" => fixed(B::Strdup, char_ptr(), vec![char_ptr()], "string.h"),
        "memset" => fixed(B::Memset, void_ptr(), vec![void_ptr(), int.clone(), SIZE_T], "string.h"),
        "memcpy" => fixed(B::Memcpy, void_ptr(), vec![void_ptr(), void_ptr(), SIZE_T], "string.h"),
        "memmove" => fixed(B::Memmove, void_ptr(), vec![void_ptr(), void_ptr(), SIZE_T], "string.h"),
        "atoi" => fixed(B::Atoi, int.clone(), vec![char_ptr()], "stdlib.h"),
        "atol" => fixed(B::Atol, Type::Int(IntType::LONG), vec![char_ptr()], "stdlib.h"),
        "abs" => fixed(B::Abs, int.clone(), vec![int], "stdlib.h"),
        "labs" => fixed(B::Labs, Type::Int(IntType::LONG), vec![Type::Int(IntType::LONG)], "stdlib.h"),
        "isdigit" => fixed(B::Isdigit, int.clone(), vec![int], "ctype.h"),
        "isalpha" => fixed(B::Isalpha, int.clone(), vec![int], "ctype.h"),
        "isspace" => fixed(B::Isspace, int.clone(), vec![int], "ctype.h"),
        "isupper" => fixed(B::Isupper, int.clone(), vec![int], "ctype.h"),
        "islower" => fixed(B::Islower, int.clone(), vec![int], "ctype.h"),
        "isalnum" => fixed(B::Isalnum, int.clone(), vec![int], "ctype.h"),
        "ispunct" => fixed(B::Ispunct, int.clone(), vec![int], "ctype.h"),
        "isxdigit" => fixed(B::Isxdigit, int.clone(), vec![int], "ctype.h"),
        "isprint" => fixed(B::Isprint, int.clone(), vec![int], "ctype.h"),
        "isgraph" => fixed(B::Isgraph, int.clone(), vec![int], "ctype.h"),
        "iscntrl" => fixed(B::Iscntrl, int.clone(), vec![int], "ctype.h"),
        "isblank" => fixed(B::Isblank, int.clone(), vec![int], "ctype.h"),
        "toupper" => fixed(B::Toupper, int.clone(), vec![int], "ctype.h"),
        "tolower" => fixed(B::Tolower, int.clone(), vec![int], "ctype.h"),
        "malloc" => fixed(B::Malloc, void_ptr(), vec![SIZE_T], "stdlib.h"),
        "calloc" => fixed(B::Calloc, void_ptr(), vec![SIZE_T, SIZE_T], "stdlib.h"),
        "realloc" => fixed(B::Realloc, void_ptr(), vec![void_ptr(), SIZE_T], "stdlib.h"),
        "free" => fixed(B::Free, Type::Void, vec![void_ptr()], "stdlib.h"),
        "exit" => fixed(B::Exit, Type::Void, vec![int], "stdlib.h"),
        "assert" => fixed(B::Assert, Type::Void, vec![int], "assert.h"),
        "__VERIFIER_assume" | "__CPROVER_assume" | "assume" => fixed(B::Assume, Type::Void, vec![int], ""),
        "reach_error" | "__VERIFIER_error" => fixed(B::ReachError, Type::Void, vec![], ""),
        _ if let Some((f, k)) = MathFn::from_c_name(name) => {
            let t = Type::Float(k);
            fixed(B::Math(f, k), t.clone(), vec![t; f.arity()], "math.h")
        }
        _ => {
            let suffix = name.strip_prefix("__VERIFIER_nondet_").or_else(|| name.strip_prefix("nondet_"))?;
            fixed(B::Nondet, nondet_type(suffix)?, vec![], "")
        }
    })
}

fn nondet_type(suffix: &str) -> Option<Type> {
    use crate::ir::{FloatKind, IntKind};
    let int = |kind, signed| Type::Int(IntType { kind, signed });
    Some(match suffix {
        "int" => Type::INT,
        "uint" | "unsigned" | "unsigned_int" => int(IntKind::Int, false),
        "char" => Type::CHAR,
        "uchar" => int(IntKind::Char, false),
        "short" => int(IntKind::Short, true),
        "ushort" => int(IntKind::Short, false),
        "long" => int(IntKind::Long, true),
        "ulong" => int(IntKind::Long, false),
        "longlong" => int(IntKind::LongLong, true),
        "ulonglong" => int(IntKind::LongLong, false),
        "bool" | "_Bool" => Type::Int(IntType::BOOL),
        "float" => Type::Float(FloatKind::Float),
        "double" => Type::DOUBLE,
        _ => return None,
    })
}

/// Object-like macros of the standard headers that students use, as (value, type).
pub fn standard_constant(name: &str) -> Option<(i64, Type)> {
    let int = Type::INT;
    Some(match name {
        "EOF" => (-1, int),
        "true" => (1, int),
        "false" => (0, int),
        "EXIT_SUCCESS" => (0, int),
        "EXIT_FAILURE" => (1, int),
        "INT_MAX" => (i32::MAX as i64, int),
        "INT_MIN" => (i32::MIN as i64, int),
        "UINT_MAX" => (u32::MAX as i64, Type::Int(IntType::UINT)),
        "LONG_MAX" | "LLONG_MAX" => (i64::MAX, Type::Int(IntType::LONG)),
        "LONG_MIN" | "LLONG_MIN" => (i64::MIN, Type::Int(IntType::LONG)),
        "SHRT_MAX" => (i16::MAX as i64, int),
        "SHRT_MIN" => (i16::MIN as i64, int),
        "CHAR_MAX" | "SCHAR_MAX" => (127, int),
        "CHAR_MIN" | "SCHAR_MIN" => (-128, int),
        "UCHAR_MAX" => (255, int),
        "CHAR_BIT" => (8, int),
        "RAND_MAX" => (i32::MAX as i64, int),
        _ => return None,
    })
}

/// Floating-point macros of `<float.h>`, as (value, type).
pub fn float_constant(name: &str) -> Option<(f64, Type)> {
    let float = Type::Float(FloatKind::Float);
    Some(match name {
        "FLT_MAX" => (f32::MAX as f64, float),
        "FLT_MIN" => (f32::MIN_POSITIVE as f64, float),
        "FLT_EPSILON" => (f32::EPSILON as f64, float),
        "DBL_MAX" => (f64::MAX, Type::DOUBLE),
        "DBL_MIN" => (f64::MIN_POSITIVE, Type::DOUBLE),
        "DBL_EPSILON" => (f64::EPSILON, Type::DOUBLE),
        _ => return None,
    })
}

/// The header that defines the constant `name` (one of [`standard_constant`]'s or
/// [`float_constant`]'s).
pub fn constant_header(name: &str) -> &'static str {
    match name {
        "EOF" => "stdio.h",
        "true" | "false" => "stdbool.h",
        "EXIT_SUCCESS" | "EXIT_FAILURE" | "RAND_MAX" => "stdlib.h",
        _ if float_constant(name).is_some() => "float.h",
        _ => "limits.h",
    }
}

/// Library names mend knows exist but does not model yet: using one is "unsupported", not
/// "undeclared".
pub fn is_unmodelled_library_function(name: &str) -> bool {
    const NAMES: &[&str] = &[
        "fprintf",
        "sprintf",
        "snprintf",
        "fscanf",
        "sscanf",
        "fopen",
        "fclose",
        "fputs",
        "fputc",
        "fgetc",
        "getc",
        "putc",
        "ungetc",
        "fflush",
        "perror",
        "feof",
        "ferror",
        "rewind",
        "fseek",
        "ftell",
        "fread",
        "fwrite",
        "atof",
        "strtol",
        "strtoul",
        "strtod",
        "rand",
        "srand",
        "qsort",
        "bsearch",
        "system",
        "getenv",
        "abort",
        "atexit",
        "div",
        "ldiv",
        "strtok",
        "memcmp",
        "memchr",
        "strpbrk",
        "lround",
        "modf",
        "frexp",
        "cbrt",
        "cbrtf",
        "ldexp",
        "time",
        "clock",
        "difftime",
        "localtime",
        "setbuf",
        "setvbuf",
        "getline",
        "strcasecmp",
        "strncasecmp",
        "llabs",
        "printf_s",
        "scanf_s",
        "getch",
        "getche",
        "clrscr",
        "system",
    ];
    NAMES.contains(&name)
}

//! C integer operations as Z3 bit-vector terms.

//! C semantics in Z3 and the solver budget.

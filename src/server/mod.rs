//! Language Server Protocol front: the only layer that knows LSP and JSON-RPC.

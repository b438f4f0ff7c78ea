//! Block-based memory: every object (variable, string literal, `malloc` result) is one block of
//! bytes with a per-byte "initialised" flag. A pointer is `(block, offset)` packed into 64 bits
//! (`block << 32 | offset as u32`), so it can be stored in memory like any other scalar; the
//! null pointer is 0 (block 0 never exists).

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockKind {
    Global,
    Stack,
    Heap,
    Literal,
    /// A temporary holding a struct returned by value.
    Temp,
}

#[derive(Debug)]
pub struct Block {
    pub data: Vec<u8>,
    /// One byte per data byte: 1 = initialised.
    pub init: Vec<u8>,
    pub alive: bool,
    pub kind: BlockKind,
    /// What the block is, for messages: a variable name, "a string literal", "memory from malloc".
    pub name: String,
}

/// Why an access failed; the interpreter turns it into a student-readable message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    Null,
    /// Offset and size of the access, and the block's size.
    OutOfBounds {
        block: u32,
        offset: i64,
        size: u64,
        block_size: u64,
    },
    Freed {
        block: u32,
    },
    Uninit {
        block: u32,
    },
    ReadOnly,
}

pub const NULL: i64 = 0;

pub const HEAP_QUARANTINE: usize = 100_000;

#[inline]
pub fn ptr(block: u32, offset: i64) -> i64 {
    (((block as u64) << 32) | (offset as u32 as u64)) as i64
}

#[inline]
pub fn block_of(p: i64) -> u32 {
    ((p as u64) >> 32) as u32
}

#[inline]
pub fn offset_of(p: i64) -> i64 {
    p as u32 as i32 as i64
}

#[inline]
pub fn ptr_add(p: i64, delta: i64) -> i64 {
    ptr(block_of(p), offset_of(p).wrapping_add(delta))
}

pub struct Memory {
    pub blocks: Vec<Block>,
    /// Ids of dead stack blocks, reused for new stack blocks.
    free_stack: Vec<u32>,
    /// Ids of freed heap blocks, oldest first. They stay dead (so a use after free is caught)
    /// until there are more than [`HEAP_QUARANTINE`] of them; then the oldest is reused, which
    /// bounds the bookkeeping of programs that malloc and free in a long loop.
    free_heap: std::collections::VecDeque<u32>,
    pub live_bytes: u64,
    pub max_bytes: u64,
}

impl Memory {
    pub fn new(max_bytes: u64) -> Self {
        let null =
            Block { data: Vec::new(), init: Vec::new(), alive: false, kind: BlockKind::Global, name: "null".into() };
        Memory { blocks: vec![null], free_stack: Vec::new(), free_heap: Default::default(), live_bytes: 0, max_bytes }
    }

    /// Allocates `size` bytes, zeroed and marked initialised if `zeroed`, else uninitialised.
    /// `None` when the memory limit would be exceeded.
    pub fn alloc(&mut self, size: u64, kind: BlockKind, name: &str, zeroed: bool) -> Option<u32> {
        // Dead heap blocks keep a small record (for use-after-free reports): count it too.
        let new_live = self.live_bytes.checked_add(size)?;
        if new_live > self.max_bytes || size > u32::MAX as u64 / 2 {
            return None;
        }
        self.live_bytes = new_live;
        let n = size as usize;
        let block = Block { data: vec![0; n], init: vec![zeroed as u8; n], alive: true, kind, name: name.to_string() };
        if kind == BlockKind::Stack
            && let Some(id) = self.free_stack.pop()
        {
            self.blocks[id as usize] = block;
            return Some(id);
        }
        if kind == BlockKind::Heap && self.free_heap.len() > HEAP_QUARANTINE {
            let id = self.free_heap.pop_front().unwrap();
            self.blocks[id as usize] = block;
            return Some(id);
        }
        if self.blocks.len() >= (u32::MAX - 1) as usize {
            return None;
        }
        self.blocks.push(block);
        Some((self.blocks.len() - 1) as u32)
    }

    pub fn release(&mut self, id: u32) {
        let b = &mut self.blocks[id as usize];
        if !b.alive {
            return;
        }
        b.alive = false;
        self.live_bytes -= b.data.len() as u64;
        b.data = Vec::new();
        b.init = Vec::new();
        if b.kind == BlockKind::Heap {
            self.free_heap.push_back(id);
        }
        if b.kind == BlockKind::Stack || b.kind == BlockKind::Temp {
            self.free_stack.push(id);
            self.blocks[id as usize].kind = BlockKind::Stack;
        }
    }

    #[inline]
    fn check(&self, p: i64, size: u64) -> Result<(usize, usize), Fault> {
        let id = block_of(p);
        if id == 0 {
            return Err(Fault::Null);
        }
        let Some(b) = self.blocks.get(id as usize) else { return Err(Fault::Null) };
        if !b.alive {
            return Err(Fault::Freed { block: id });
        }
        let off = offset_of(p);
        let len = b.data.len() as u64;
        if off < 0 || (off as u64) + size > len {
            return Err(Fault::OutOfBounds { block: id, offset: off, size, block_size: len });
        }
        Ok((id as usize, off as usize))
    }

    /// Reads `size` (1, 2, 4 or 8) bytes little-endian, zero-extended; every byte must be initialised.
    #[inline]
    pub fn load(&self, p: i64, size: u64) -> Result<u64, Fault> {
        let (id, off) = self.check(p, size)?;
        let b = &self.blocks[id];
        let end = off + size as usize;
        if b.init[off..end].contains(&0) {
            return Err(Fault::Uninit { block: id as u32 });
        }
        let bytes = &b.data[off..end];
        let mut buf = [0u8; 8];
        buf[..bytes.len()].copy_from_slice(bytes);
        Ok(u64::from_le_bytes(buf))
    }

    #[inline]
    pub fn store(&mut self, p: i64, size: u64, v: u64) -> Result<(), Fault> {
        let (id, off) = self.check(p, size)?;
        let b = &mut self.blocks[id];
        if b.kind == BlockKind::Literal {
            return Err(Fault::ReadOnly);
        }
        let end = off + size as usize;
        b.data[off..end].copy_from_slice(&v.to_le_bytes()[..size as usize]);
        b.init[off..end].fill(1);
        Ok(())
    }

    /// Byte read that does not require initialisation (for copies).
    pub fn load_byte(&self, p: i64) -> Result<u8, Fault> {
        let (id, off) = self.check(p, 1)?;
        let b = &self.blocks[id];
        if b.init[off] == 0 {
            return Err(Fault::Uninit { block: id as u32 });
        }
        Ok(b.data[off])
    }

    pub fn store_byte(&mut self, p: i64, v: u8) -> Result<(), Fault> {
        self.store(p, 1, v as u64)
    }

    /// Copies `size` bytes with their initialised flags (struct assignment).
    pub fn copy(&mut self, dst: i64, src: i64, size: u64) -> Result<(), Fault> {
        if size == 0 {
            return Ok(());
        }
        let (sid, soff) = self.check(src, size)?;
        let (did, doff) = self.check(dst, size)?;
        if self.blocks[did].kind == BlockKind::Literal {
            return Err(Fault::ReadOnly);
        }
        let n = size as usize;
        let data: Vec<u8> = self.blocks[sid].data[soff..soff + n].to_vec();
        let init: Vec<u8> = self.blocks[sid].init[soff..soff + n].to_vec();
        let d = &mut self.blocks[did];
        d.data[doff..doff + n].copy_from_slice(&data);
        d.init[doff..doff + n].copy_from_slice(&init);
        Ok(())
    }

    /// Sets `size` bytes to zero and marks them initialised.
    pub fn zero(&mut self, dst: i64, size: u64) -> Result<(), Fault> {
        let (id, off) = self.check(dst, size)?;
        let d = &mut self.blocks[id];
        let n = size as usize;
        d.data[off..off + n].fill(0);
        d.init[off..off + n].fill(1);
        Ok(())
    }

    /// Marks `size` bytes uninitialised (a declaration without initialiser re-executed).
    pub fn uninit(&mut self, dst: i64, size: u64) -> Result<(), Fault> {
        let (id, off) = self.check(dst, size)?;
        self.blocks[id].init[off..off + size as usize].fill(0);
        Ok(())
    }

    /// Whether the `size` bytes at `p` can be read (`write: false`) or written, without
    /// reading them: for the library's byte functions, which check a whole range first.
    pub fn check_range(&self, p: i64, size: u64, write: bool) -> Result<(), Fault> {
        // A huge `size` (`(size_t) -1`) must not overflow the check.
        let (id, _) = self.check(p, size.min(u32::MAX as u64 + 1))?;
        if write && self.blocks[id].kind == BlockKind::Literal {
            return Err(Fault::ReadOnly);
        }
        Ok(())
    }

    /// Sets `size` bytes to `v` and marks them initialised (`memset`).
    pub fn fill(&mut self, dst: i64, size: u64, v: u8) -> Result<(), Fault> {
        self.check_range(dst, size, true)?;
        let (id, off) = (block_of(dst) as usize, offset_of(dst) as usize);
        let d = &mut self.blocks[id];
        let n = size as usize;
        d.data[off..off + n].fill(v);
        d.init[off..off + n].fill(1);
        Ok(())
    }

    pub fn block_size(&self, id: u32) -> u64 {
        self.blocks.get(id as usize).map_or(0, |b| b.data.len() as u64)
    }
}

//! The server's memory behaviour under glibc: a closed 10 MB file must give its memory back.
//!
//! Two things kept it: glibc raises its mmap threshold each time a large block is freed (up
//! to 32 MB), after which the next 10 MB texts, JSON buffers and tree arrays came from the
//! heap arenas and stayed there; and freed heap pages are kept until `malloc_trim`.

/// Blocks of 1 MB and more are always mapped on their own, so freeing one unmaps it at once.
pub fn configure() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        const M_MMAP_THRESHOLD: i32 = -3;
        unsafe extern "C" {
            fn mallopt(param: i32, value: i32) -> i32;
        }
        // SAFETY: mallopt only changes the allocator's policy for later allocations.
        unsafe {
            mallopt(M_MMAP_THRESHOLD, 1 << 20);
        }
    }
}

/// Hands freed heap pages back to the system (glibc keeps them otherwise: a closed 10 MB file
/// kept the server at 640 MB).
pub fn release_freed() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        unsafe extern "C" {
            fn malloc_trim(pad: usize) -> i32;
        }
        // SAFETY: glibc's malloc_trim only returns free pages to the kernel.
        unsafe {
            malloc_trim(0);
        }
    }
}

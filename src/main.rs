//! The page's entry point: it mounts the app, and installs the page's
//! allocator (`ui::memory::PageAllocator`), which counts the memory in use
//! for the session's budget and shows "out of memory" should an allocation
//! still fail, instead of the bare trap a failed allocation is in wasm.

#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: kafkascope::ui::memory::PageAllocator<std::alloc::System> = kafkascope::ui::memory::PageAllocator::new(
    std::alloc::System,
    &kafkascope::ui::memory::LIVE_BYTES,
    kafkascope::ui::out_of_memory,
);

fn main() {
    #[cfg(target_arch = "wasm32")]
    kafkascope::ui::start();
    #[cfg(not(target_arch = "wasm32"))]
    eprintln!("kafkascope is the browser app: serve it with scripts/serve (see README.md), or use kafkascope-cli");
}

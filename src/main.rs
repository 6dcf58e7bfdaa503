//! The page's entry point: it only mounts the app.

fn main() {
    #[cfg(target_arch = "wasm32")]
    kafkascope::ui::start();
    #[cfg(not(target_arch = "wasm32"))]
    eprintln!("kafkascope is the browser app: serve it with scripts/serve (see README.md), or use kafkascope-cli");
}

# Installs whatever KafkaScope needs and is missing; sourced by scripts/serve
# and scripts/test. Every tool goes into the git-ignored .tools/ folder (or,
# for Chromium, comes from Debian's packages), so a fresh machine needs nothing
# done by hand. Each step checks first, so a second run installs nothing.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="$ROOT/.tools"
TRUNK_VERSION="0.21.14"
BINARYEN_VERSION="132.0.0"
TERSER_VERSION="5.51.4"
export PATH="$TOOLS/bin:$TOOLS/npm/node_modules/.bin:$HOME/.cargo/bin:$PATH"

say() { printf '\033[1m== %s\033[0m\n' "$*"; }

# The wasm-bindgen CLI must be exactly the version of the wasm-bindgen crate
# that Cargo.lock holds, or the generated JS glue will not match.
wasm_bindgen_version() {
    awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' "$ROOT/Cargo.lock"
}

ensure_wasm_target() {
    if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
        say "adding the wasm32-unknown-unknown target"
        rustup target add wasm32-unknown-unknown
    fi
}

ensure_trunk() {
    if [ "$("$TOOLS/bin/trunk" --version 2>/dev/null)" != "trunk $TRUNK_VERSION" ]; then
        say "building trunk $TRUNK_VERSION from crates.io (about 7 minutes, once)"
        cargo install trunk --version "$TRUNK_VERSION" --locked --root "$TOOLS"
    fi
}

ensure_wasm_bindgen() {
    local version
    if [ ! -f "$ROOT/Cargo.lock" ]; then
        (cd "$ROOT" && cargo generate-lockfile)
    fi
    version="$(wasm_bindgen_version)"
    if [ "$("$TOOLS/bin/wasm-bindgen" --version 2>/dev/null)" != "wasm-bindgen $version" ]; then
        say "building wasm-bindgen-cli $version from crates.io (once)"
        # Without --locked: one of its locked dependencies is not on the registry.
        cargo install wasm-bindgen-cli --version "$version" --root "$TOOLS" --force
    fi
}

ensure_wasm_opt() {
    # Debian's binaryen is too old to read current Rust output; npm's is not.
    if ! "$TOOLS/npm/node_modules/.bin/wasm-opt" --version 2>/dev/null | grep -q "version ${BINARYEN_VERSION%%.*}"; then
        say "installing wasm-opt from the npm package binaryen@$BINARYEN_VERSION"
        mkdir -p "$TOOLS/npm"
        npm install --prefix "$TOOLS/npm" --no-audit --no-fund --loglevel=error "binaryen@$BINARYEN_VERSION"
    fi
}

ensure_terser() {
    # A release build's hook (scripts/minify-glue) minifies wasm-bindgen's
    # JavaScript glue with it: Trunk's own minifier cannot read that file.
    if [ "$("$TOOLS/npm/node_modules/.bin/terser" --version 2>/dev/null)" != "terser $TERSER_VERSION" ]; then
        say "installing terser@$TERSER_VERSION from npm (it minifies the page's JavaScript glue)"
        mkdir -p "$TOOLS/npm"
        npm install --prefix "$TOOLS/npm" --no-audit --no-fund --loglevel=error "terser@$TERSER_VERSION"
    fi
}

ensure_chromium() {
    # fonts-nanum gives headless Chromium Korean glyphs for screenshots.
    if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ] || [ ! -d /usr/share/fonts/truetype/nanum ]; then
        say "installing Chromium and ChromeDriver from Debian"
        local sudo=""
        [ "$(id -u)" = 0 ] || sudo="sudo"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium chromium-driver fonts-nanum
    fi
}

ensure_e2e_packages() {
    if [ ! -d "$ROOT/tests/e2e/node_modules/playwright-core" ]; then
        say "installing playwright-core for the end-to-end tests (it drives Debian's Chromium)"
        # npm ci installs exactly the lockfile; playwright-core downloads no browser.
        (cd "$ROOT/tests/e2e" && npm ci --no-audit --no-fund --loglevel=error)
    fi
}

setup_build_tools() {
    ensure_wasm_target
    ensure_wasm_bindgen
    ensure_wasm_opt
    ensure_terser
    ensure_trunk
}

setup_test_tools() {
    setup_build_tools
    ensure_chromium
    ensure_e2e_packages
}

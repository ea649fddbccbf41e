//! What the viewer's build and the tests need, installed idempotently: each
//! check is cheap when the tool is there, and only a missing or wrong
//! version is installed. Nothing is downloaded at build time by trunk: it
//! runs offline with these.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::cmd::{cargo, output, step};

/// trunk 0.22 needs a newer rustc than this machine's.
pub const TRUNK_VERSION: &str = "0.21.14";
/// Must equal `wasm-bindgen` in Cargo.lock (pinned with `=`).
pub const WASM_BINDGEN_VERSION: &str = "0.2.130";

/// Where `cargo install` puts binaries.
fn cargo_bin() -> PathBuf {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .unwrap_or_else(|| PathBuf::from(".cargo"));
    home.join("bin")
}

/// The e2e package folder (playwright-core and npm's binaryen).
pub fn e2e_dir(root: &Path) -> PathBuf {
    root.join("tests/e2e")
}

/// `PATH` with the installed tools first: cargo's bin (trunk,
/// wasm-bindgen) and the e2e package's bin (wasm-opt 132; Debian's 108
/// breaks the bundle).
pub fn path(root: &Path) -> std::ffi::OsString {
    let mut dirs = vec![e2e_dir(root).join("node_modules/.bin"), cargo_bin()];
    if let Some(old) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&old));
    }
    std::env::join_paths(dirs).unwrap_or_default()
}

fn version_of(root: &Path, program: &str) -> Option<String> {
    let out = Command::new(program)
        .arg("--version")
        .env("PATH", path(root))
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// trunk and wasm-bindgen-cli at the pinned versions.
pub fn ensure_rust_tools(root: &Path) -> Result<()> {
    let want = format!("trunk {TRUNK_VERSION}");
    if version_of(root, "trunk").as_deref() == Some(&want) {
        println!("==> {want}: already installed");
    } else {
        step(
            &format!("cargo install trunk {TRUNK_VERSION} (takes minutes, once)"),
            root,
            cargo()
                .args(["install", "--locked", "trunk", "--version", TRUNK_VERSION])
                // The update check is the only thing its default features add.
                .args(["--no-default-features", "--features", "rustls"])
                // trunk's own fat-LTO profile takes 40 % longer to build.
                .env("CARGO_PROFILE_RELEASE_LTO", "false")
                .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "16"),
        )?;
    }
    let want = format!("wasm-bindgen {WASM_BINDGEN_VERSION}");
    if version_of(root, "wasm-bindgen").as_deref() == Some(&want) {
        println!("==> {want}: already installed");
    } else {
        let name =
            format!("cargo install wasm-bindgen-cli {WASM_BINDGEN_VERSION} (takes minutes, once)");
        let locked = step(
            &name,
            root,
            cargo().args([
                "install",
                "--locked",
                "wasm-bindgen-cli",
                "--version",
                WASM_BINDGEN_VERSION,
            ]),
        );
        if locked.is_err() {
            // Its lockfile names a webpki-roots release the registry mirror
            // lacks; unlocked it resolves to one that is there.
            step(
                &format!("{name}, unlocked"),
                root,
                cargo().args([
                    "install",
                    "wasm-bindgen-cli",
                    "--version",
                    WASM_BINDGEN_VERSION,
                ]),
            )?;
        }
    }
    Ok(())
}

/// cargo-fuzz, for `cargo xtask fuzz` (run on the stable toolchain with
/// `RUSTC_BOOTSTRAP=1`: libFuzzer's flags are nightly-only).
pub const CARGO_FUZZ_VERSION: &str = "0.13.2";

/// cargo-fuzz at the pinned version.
pub fn ensure_cargo_fuzz(root: &Path) -> Result<()> {
    let want = format!("cargo-fuzz {CARGO_FUZZ_VERSION}");
    if version_of(root, "cargo-fuzz").as_deref() == Some(&want) {
        println!("==> {want}: already installed");
        return Ok(());
    }
    step(
        &format!("cargo install cargo-fuzz {CARGO_FUZZ_VERSION} (takes minutes, once)"),
        root,
        cargo().args([
            "install",
            "--locked",
            "cargo-fuzz",
            "--version",
            CARGO_FUZZ_VERSION,
        ]),
    )
}

/// The npm packages of the e2e tests (playwright-core; binaryen and esbuild-wasm,
/// which the release build of the viewer runs), from the lockfile.
pub fn ensure_npm(root: &Path) -> Result<()> {
    let dir = e2e_dir(root);
    let ready = dir
        .join("node_modules/playwright-core/package.json")
        .exists()
        && dir.join("node_modules/.bin/wasm-opt").exists()
        && dir.join("node_modules/esbuild-wasm/bin/esbuild").exists();
    if ready {
        println!("==> npm packages of tests/e2e: already installed");
        return Ok(());
    }
    step(
        "npm ci (tests/e2e)",
        &dir,
        Command::new("npm").args(["ci", "--no-audit", "--no-fund"]),
    )
}

/// The npm package of the client tests: real agents' own loaders.
pub fn clients_dir(root: &Path) -> PathBuf {
    root.join("tests/clients")
}

/// Whether every package the lockfile of `dir` names is installed in its
/// `node_modules` at the locked version, optional ones (other platforms'
/// builds) if present (what `npm ci` would make).
fn npm_matches_lock(dir: &Path) -> bool {
    let read = |p: PathBuf| -> Option<serde_json::Value> {
        serde_json::from_slice(&std::fs::read(p).ok()?).ok()
    };
    let Some(lock) = read(dir.join("package-lock.json")) else {
        return false;
    };
    let Some(packages) = lock["packages"].as_object() else {
        return false;
    };
    packages
        .iter()
        .filter(|(at, _)| !at.is_empty())
        .all(
            |(at, locked)| match read(dir.join(at).join("package.json")) {
                Some(installed) => installed["version"] == locked["version"],
                // Another platform's build (npm leaves those out).
                None => locked["optional"] == true,
            },
        )
}

/// The client tests' npm packages (pi, Claude Code and Gemini CLI), from
/// the lockfile, optional packages left out (`.npmrc`: no prebuilt native
/// builds); nothing is done when `node_modules` already matches it.
pub fn ensure_clients_npm(root: &Path) -> Result<()> {
    let dir = clients_dir(root);
    if npm_matches_lock(&dir) {
        println!("==> npm packages of tests/clients: already installed");
        return Ok(());
    }
    step(
        "npm ci (tests/clients)",
        &dir,
        Command::new("npm").args(["ci", "--no-audit", "--no-fund"]),
    )
}

/// The package tests' folder (`tests/package`: TypeScript for the
/// declarations' check).
pub fn package_tests_dir(root: &Path) -> PathBuf {
    root.join("tests/package")
}

/// The package tests' npm packages, from the lockfile; nothing is done
/// when `node_modules` already matches it (the tests link the built
/// package there themselves, which the check passes over).
pub fn ensure_package_npm(root: &Path) -> Result<()> {
    let dir = package_tests_dir(root);
    if npm_matches_lock(&dir) {
        println!("==> npm packages of tests/package: already installed");
        return Ok(());
    }
    step(
        "npm ci (tests/package)",
        &dir,
        Command::new("npm").args(["ci", "--no-audit", "--no-fund"]),
    )
}

/// Debian's Chromium for the browser tests (a test tool's own browser
/// download does not work here).
pub fn ensure_chromium() -> Result<PathBuf> {
    let chromium = PathBuf::from("/usr/bin/chromium");
    if chromium.exists() {
        println!("==> chromium: already installed");
        return Ok(chromium);
    }
    apt_install("chromium", "installing Chromium needs root or sudo")?;
    if !chromium.exists() {
        bail!(
            "chromium was installed but {} is missing",
            chromium.display()
        );
    }
    Ok(chromium)
}

/// Debian's Postgres server programs for the store's tests (the
/// `postgresql` package), installed when missing; their folder.
pub fn ensure_postgres() -> Result<PathBuf> {
    if let Ok(bin) = retrace_test_postgres::bin_dir() {
        println!("==> postgresql: already installed ({})", bin.display());
        return Ok(bin);
    }
    apt_install("postgresql", "installing Postgres needs root or sudo")?;
    retrace_test_postgres::bin_dir()
        .map_err(|e| anyhow::anyhow!("postgresql was installed, but: {e}"))
}

/// GNU time (`/usr/bin/time`, Debian's `time`), which the benches run
/// commands under for their wall time and peak memory.
pub fn ensure_gnu_time() -> Result<PathBuf> {
    let time = PathBuf::from("/usr/bin/time");
    if !time.exists() {
        apt_install("time", "installing GNU time needs root or sudo")?;
    }
    Ok(time)
}

/// `apt-get install` of one Debian package (through sudo unless root).
fn apt_install(package: &str, needs: &str) -> Result<()> {
    let is_root = output(Command::new("id").arg("-u"))
        .map(|u| u.trim() == "0")
        .unwrap_or(false);
    let apt = |args: &[&str]| {
        let mut c = if is_root {
            Command::new("apt-get")
        } else {
            let mut c = Command::new("sudo");
            c.arg("apt-get");
            c
        };
        c.args(args).env("DEBIAN_FRONTEND", "noninteractive");
        c
    };
    step(
        "apt-get update",
        Path::new("."),
        &mut apt(&["update", "-qq"]),
    )
    .context(needs.to_owned())?;
    step(
        &format!("apt-get install {package}"),
        Path::new("."),
        &mut apt(&["install", "-y", "-qq", "--no-install-recommends", package]),
    )
}

/// Everything the viewer build needs, plus `cargo fetch` (trunk runs cargo
/// offline).
pub fn ensure_web_build(root: &Path) -> Result<()> {
    crate::wasm::ensure_target()?;
    ensure_rust_tools(root)?;
    ensure_npm(root)?;
    step("cargo fetch", root, cargo().args(["fetch", "--locked"]))
}

#[cfg(test)]
mod tests {
    use super::npm_matches_lock;

    #[test]
    fn node_modules_matches_the_lock_when_each_locked_version_is_there() {
        let dir = std::env::temp_dir().join(format!("xtask-npm-lock-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let put = |at: &str, text: &str| {
            let file = dir.join(at);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, text).unwrap();
        };
        assert!(!npm_matches_lock(&dir), "no lockfile");
        put(
            "package-lock.json",
            r#"{"packages": {"": {"name": "x"},
                "node_modules/a": {"version": "1.0.0"},
                "node_modules/@s/b": {"version": "2.0.0"},
                "node_modules/c-darwin": {"version": "3.0.0", "optional": true}}}"#,
        );
        assert!(!npm_matches_lock(&dir), "nothing installed");
        put("node_modules/a/package.json", r#"{"version": "1.0.0"}"#);
        put("node_modules/@s/b/package.json", r#"{"version": "1.9.0"}"#);
        assert!(!npm_matches_lock(&dir), "a wrong version");
        put("node_modules/@s/b/package.json", r#"{"version": "2.0.0"}"#);
        assert!(
            npm_matches_lock(&dir),
            "another platform's build may be absent"
        );
        put(
            "node_modules/c-darwin/package.json",
            r#"{"version": "2.0.0"}"#,
        );
        assert!(!npm_matches_lock(&dir), "but not at another version");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

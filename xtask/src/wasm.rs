//! The wasm32 side of the checks: the rustup target, and proof that the
//! core, linked into a module, imports nothing from its host (no clock, no
//! randomness, no file system: it is sans-I/O).

use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::cmd::{cargo, output, step, target_dir};

pub const TARGET: &str = "wasm32-unknown-unknown";

/// Adds the wasm32 target with rustup unless it is already installed.
pub fn ensure_target() -> Result<()> {
    let installed = output(Command::new("rustup").args(["target", "list", "--installed"]))
        .context("rustup is needed to add the wasm32 target")?;
    if installed.lines().any(|l| l.trim() == TARGET) {
        println!("==> rustup target {TARGET}: already installed");
        return Ok(());
    }
    step(
        &format!("rustup target add {TARGET}"),
        Path::new("."),
        Command::new("rustup").args(["target", "add", TARGET]),
    )
}

/// Builds `xtask/wasm-probe` (a module that exercises the core: open, tree,
/// context, deep check) and fails if its import section names anything.
pub fn check_no_imports(root: &Path) -> Result<()> {
    let probe = root.join("xtask/wasm-probe");
    // Its own target dir (it is not in the workspace), beside the
    // workspace's, wherever that is.
    let target_dir = target_dir(root)?.join("wasm-probe");
    step(
        "wasm probe build",
        &probe,
        cargo()
            .args(["build", "--release", "--target", TARGET, "--target-dir"])
            .arg(&target_dir),
    )?;
    let wasm = target_dir
        .join(TARGET)
        .join("release/retrace_wasm_probe.wasm");
    let bytes = std::fs::read(&wasm).with_context(|| format!("reading {}", wasm.display()))?;
    let imports = imports(&bytes).with_context(|| format!("parsing {}", wasm.display()))?;
    if !imports.is_empty() {
        bail!(
            "retrace-core imports from its host ({}): {}",
            wasm.display(),
            imports.join(", ")
        );
    }
    println!(
        "==> wasm imports: none ({} bytes, {})",
        bytes.len(),
        wasm.display()
    );
    Ok(())
}

/// The `module.name` of every import of a wasm module.
pub fn imports(wasm: &[u8]) -> Result<Vec<String>> {
    let mut r = WasmReader {
        bytes: wasm,
        pos: 0,
    };
    if r.take(4)? != b"\0asm" {
        bail!("not a wasm module (bad magic)");
    }
    let version = r.take(4)?;
    if version != [1, 0, 0, 0] {
        bail!("unsupported wasm version {version:?}");
    }
    let mut out = Vec::new();
    while r.pos < wasm.len() {
        let id = r.byte()?;
        let size = r.leb()? as usize;
        let body = r.take(size)?;
        if id != 2 {
            continue;
        }
        let mut s = WasmReader {
            bytes: body,
            pos: 0,
        };
        for _ in 0..s.leb()? {
            let module = s.name()?;
            let name = s.name()?;
            match s.byte()? {
                0 => {
                    s.leb()?; // function type index
                }
                1 => {
                    s.byte()?; // reference type
                    s.limits()?;
                }
                2 => s.limits()?,
                3 => {
                    s.byte()?; // value type
                    s.byte()?; // mutability
                }
                4 => {
                    s.byte()?; // tag attribute
                    s.leb()?;
                }
                kind => bail!("unknown import kind {kind}"),
            }
            out.push(format!("{module}.{name}"));
        }
    }
    Ok(out)
}

struct WasmReader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> WasmReader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.bytes.len());
        let Some(end) = end else {
            bail!("truncated at byte {}", self.pos);
        };
        let out = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(out)
    }

    fn byte(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }

    /// An unsigned LEB128 number.
    fn leb(&mut self) -> Result<u64> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            value |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        bail!("LEB128 number too long at byte {}", self.pos)
    }

    fn name(&mut self) -> Result<String> {
        let len = self.leb()? as usize;
        Ok(String::from_utf8_lossy(self.take(len)?).into_owned())
    }

    fn limits(&mut self) -> Result<()> {
        let flags = self.byte()?;
        self.leb()?;
        if flags & 1 != 0 {
            self.leb()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::imports;

    #[test]
    fn reads_the_import_section() {
        // A module importing `env.now` (a function of type 0) and
        // `env.memory` (a memory with min 1, max 2).
        let mut m = b"\0asm\x01\0\0\0".to_vec();
        // type section: one type () -> ()
        m.extend_from_slice(&[1, 4, 1, 0x60, 0, 0]);
        let mut imports_body = vec![2];
        imports_body.extend_from_slice(&[3, b'e', b'n', b'v', 3, b'n', b'o', b'w', 0, 0]);
        imports_body.extend_from_slice(&[3, b'e', b'n', b'v', 6]);
        imports_body.extend_from_slice(b"memory");
        imports_body.extend_from_slice(&[2, 1, 1, 2]);
        m.push(2);
        m.push(imports_body.len() as u8);
        m.extend_from_slice(&imports_body);
        assert_eq!(imports(&m).unwrap(), ["env.now", "env.memory"]);
        assert!(imports(b"\0asm\x01\0\0\0").unwrap().is_empty());
        assert!(imports(b"nope").is_err());
    }
}

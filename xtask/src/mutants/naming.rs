//! A copy's own crates get a version of their own (`0.1.0+mutants.worker-0.<hash of its path>`),
//! so that in the build directory the copies share with the workspace their compiled files are
//! named apart.
//!
//! Cargo names a compiled crate after a hash of its package's name, version and path relative to
//! the workspace root (and of its profile), so without this a copy's `vvoc-reference` and the
//! workspace's, or two copies', would be one file there: each build would replace the other's
//! or, worse, find the other's fresh and link a mutant into it. (The copies also build their
//! crates without debug info, which sets them apart from the workspace's dev build but not from
//! each other; the version does both, whatever the profiles.) The dependencies, which the copies
//! never change, keep their names, so a copy's build reuses what `cargo test` compiled. Only
//! build metadata is added to the version (`+…`), which orders the same and leaves every version
//! requirement met.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use anyhow::{Context as _, Result, bail};

/// The files of a copy that name its packages' versions, rewritten as the copy holds them.
#[derive(Clone, Debug)]
pub struct Naming {
    /// The build metadata added to every version (`mutants.worker-0`).
    tag: String,
    /// The workspace's own packages (its members), by name.
    packages: BTreeSet<String>,
    /// Their manifests, relative to the workspace root.
    manifests: BTreeSet<PathBuf>,
    /// The workspace's build directory (cargo's `build-dir`), where the copy builds too.
    pub build_dir: PathBuf,
}

impl Naming {
    /// The naming of the copy whose folder is `base` (which exists), for the workspace at
    /// `root`, whose members and build directory `cargo metadata` gives (as cargo started from
    /// the shell sees them, so `CARGO_TARGET_DIR`, `CARGO_BUILD_BUILD_DIR` and cargo's
    /// configuration are followed).
    pub fn read(root: &Path, base: &Path) -> Result<Naming> {
        let base = base
            .canonicalize()
            .with_context(|| format!("cannot resolve {}", base.display()))?;
        let members = cargo_metadata(root)?;
        let mut packages = BTreeSet::new();
        let mut manifests = BTreeSet::new();
        for package in members.packages {
            let relative = package
                .manifest_path
                .strip_prefix(&members.workspace_root)
                .with_context(|| {
                    format!(
                        "the member {} lies outside the workspace root {}",
                        package.manifest_path.display(),
                        members.workspace_root.display()
                    )
                })?
                .to_owned();
            packages.insert(package.name);
            manifests.insert(relative);
        }
        Ok(Naming {
            tag: tag(&base),
            packages,
            manifests,
            build_dir: members.build_directory.unwrap_or(members.target_directory),
        })
    }

    /// Checks that cargo reads every package of the copy at `tree` with the copy's version:
    /// a version the rewrite did not recognise (written another way than `version = "…"` in
    /// `[package]` or `[workspace.package]`) would leave the copy's crates named as the
    /// workspace's.
    pub fn check(&self, tree: &Path) -> Result<()> {
        let copy = cargo_metadata(tree)?;
        for package in copy.packages {
            if !package.version.ends_with(&self.tag) {
                bail!(
                    "{}: cargo reads the version of {} as {} in a mutation copy, without the \
                     copy's tag `{}`; write the version as `version = \"…\"` in [package] or \
                     [workspace.package], which the copies know how to tag",
                    package.manifest_path.display(),
                    package.name,
                    package.version,
                    self.tag
                );
            }
        }
        Ok(())
    }

    /// The workspace's own packages, by name.
    pub fn packages(&self) -> impl Iterator<Item = &str> {
        self.packages.iter().map(String::as_str)
    }

    /// The text the copy holds for the workspace file at `relative` (`content` is the
    /// workspace's): the root manifest, the lock file and the members' manifests get the copy's
    /// versions; every other file is kept as it is.
    pub fn rewrite(&self, relative: &Path, content: Vec<u8>) -> Result<Vec<u8>> {
        let rewritten = if relative == Path::new("Cargo.lock") {
            self.lock(&text(relative, &content)?)
        } else if self.manifests.contains(relative) || relative == Path::new("Cargo.toml") {
            self.manifest(&text(relative, &content)?)
        } else {
            return Ok(content);
        };
        Ok(rewritten.into_bytes())
    }

    /// A manifest with the version of its `[package]` and of its `[workspace.package]` tagged.
    fn manifest(&self, text: &str) -> String {
        let mut table = String::new();
        let mut out = String::with_capacity(text.len() + self.tag.len());
        for line in text.split_inclusive('\n') {
            if let Some(header) = header(line) {
                table = header;
            }
            let versioned = table == "package" || table == "workspace.package";
            match versioned.then(|| version(line)).flatten() {
                Some(value) => out.push_str(&self.tagged(line, value)),
                None => out.push_str(line),
            }
        }
        out
    }

    /// The lock file with the versions of the workspace's own packages (a `[[package]]` named
    /// after one, without a `source`) tagged.
    fn lock(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut block: Vec<&str> = Vec::new();
        for line in text.split_inclusive('\n') {
            if line.trim_end() == "[[package]]" {
                self.lock_block(&block, &mut out);
                block.clear();
            }
            block.push(line);
        }
        self.lock_block(&block, &mut out);
        out
    }

    fn lock_block(&self, block: &[&str], out: &mut String) {
        let own = block.iter().any(|line| {
            string_value(line, "name").is_some_and(|name| self.packages.contains(name))
        }) && !block.iter().any(|line| line.starts_with("source = "));
        for line in block {
            match own.then(|| version(line)).flatten() {
                Some(value) => out.push_str(&self.tagged(line, value)),
                None => out.push_str(line),
            }
        }
    }

    /// `line` (a `version = "…"` line whose value is `value`) with the tag added.
    fn tagged(&self, line: &str, value: &str) -> String {
        let joiner = if value.contains('+') { '.' } else { '+' };
        let quoted = format!("\"{value}\"");
        let end = line
            .find(&quoted)
            .map_or(line.len(), |at| at + quoted.len() - 1);
        format!("{}{joiner}{}{}", &line[..end], self.tag, &line[end..])
    }
}

/// What `cargo metadata --no-deps` says of the workspace.
#[derive(Deserialize)]
struct Metadata {
    workspace_root: PathBuf,
    target_directory: PathBuf,
    /// Said since cargo 1.91, which made `build-dir` stable.
    build_directory: Option<PathBuf>,
    packages: Vec<Member>,
}

#[derive(Deserialize)]
struct Member {
    name: String,
    version: String,
    manifest_path: PathBuf,
}

/// `cargo metadata --no-deps` of the workspace at `root`.
fn cargo_metadata(root: &Path) -> Result<Metadata> {
    let manifest = root.join("Cargo.toml");
    let output = crate::child::command(env!("CARGO"))
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--offline",
        ])
        .arg("--manifest-path")
        .arg(&manifest)
        .output()
        .with_context(|| format!("cannot run cargo metadata on {}", manifest.display()))?;
    if !output.status.success() {
        bail!(
            "cargo metadata on {} failed: {}",
            manifest.display(),
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    serde_json::from_slice(&output.stdout)
        .with_context(|| format!("cargo metadata on {} said", manifest.display()))
}

/// The tag of the copy at `base` (an absolute path): its folder's name, for people, and a hash
/// of its whole path, so that copies of two checkouts sharing one build directory (a global
/// `CARGO_TARGET_DIR`, say) are apart too.
fn tag(base: &Path) -> String {
    let folder = base
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let hash = xxhash_rust::xxh32::xxh32(base.as_os_str().as_encoded_bytes(), 0);
    format!("mutants.{}.{hash:08x}", identifier(&folder))
}

/// `folder` as a build metadata identifier (ASCII letters, digits and hyphens).
fn identifier(folder: &str) -> String {
    let cleaned: String = folder
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    if cleaned.is_empty() {
        "copy".to_owned()
    } else {
        cleaned
    }
}

fn text<'a>(relative: &Path, content: &'a [u8]) -> Result<std::borrow::Cow<'a, str>> {
    match std::str::from_utf8(content) {
        Ok(text) => Ok(text.into()),
        Err(error) => bail!("{}: not UTF-8 ({error})", relative.display()),
    }
}

/// The table a header line opens (`[package]` → `package`), or `None` for another line.
fn header(line: &str) -> Option<String> {
    let line = line.trim();
    let inner = line.strip_prefix('[')?.split(']').next()?;
    Some(inner.trim_matches(['[', ' ']).to_owned())
}

/// The value of a `version = "…"` line.
fn version(line: &str) -> Option<&str> {
    string_value(line, "version")
}

/// The value of a `key = "…"` line.
fn string_value<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let rest = line.trim_start().strip_prefix(key)?.trim_start();
    let rest = rest.strip_prefix('=')?.trim();
    rest.strip_prefix('"')?.split('"').next()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The naming of a workspace whose members are `packages`, each in the folder of its name.
    fn naming(packages: &[&str]) -> Naming {
        Naming {
            tag: "mutants.worker-0".to_owned(),
            packages: packages.iter().map(|p| (*p).to_owned()).collect(),
            manifests: packages
                .iter()
                .map(|p| Path::new(p).join("Cargo.toml"))
                .collect(),
            build_dir: PathBuf::from("/build"),
        }
    }

    fn rewrite(naming: &Naming, path: &str, text: &str) -> String {
        let bytes = naming
            .rewrite(Path::new(path), text.as_bytes().to_vec())
            .expect("rewritten");
        String::from_utf8(bytes).expect("UTF-8")
    }

    #[test]
    fn the_root_manifest_tags_the_workspace_version_and_nothing_else() {
        let root = "[workspace]\nmembers = [\"a\"]\n\n[workspace.package]\nversion = \"0.1.0\"\n\
                    edition = \"2024\"\n\n[workspace.dependencies]\nserde = { version = \"1\" }\n\
                    url = \"2\"\n";
        let said = rewrite(&naming(&["a"]), "Cargo.toml", root);
        assert_eq!(
            said,
            root.replace("\"0.1.0\"", "\"0.1.0+mutants.worker-0\"")
        );
    }

    #[test]
    fn a_member_manifest_tags_its_own_version_but_not_its_dependencies() {
        let member = "[package]\nname = \"a\"\nversion = \"1.2.3\"\n\n[dependencies]\n\
                      b = { version = \"1.2.3\", path = \"../b\" }\n";
        let said = rewrite(&naming(&["a"]), "a/Cargo.toml", member);
        assert!(
            said.contains("version = \"1.2.3+mutants.worker-0\"\n"),
            "{said}"
        );
        assert!(said.contains("b = { version = \"1.2.3\", path"), "{said}");
    }

    #[test]
    fn a_version_with_build_metadata_gets_the_tag_as_one_more_identifier() {
        let member = "[package]\nname = \"a\"\nversion = \"1.0.0+build.7\"\n";
        let said = rewrite(&naming(&["a"]), "a/Cargo.toml", member);
        assert!(
            said.contains("\"1.0.0+build.7.mutants.worker-0\""),
            "{said}"
        );
    }

    #[test]
    fn a_version_the_rewrite_does_not_know_is_refused_naming_the_manifest() {
        let dir = tempfile::tempdir().expect("a folder");
        let manifest = "[package]\nname = \"a\"\nversion = '0.3.0'\nedition = \"2024\"\n";
        std::fs::create_dir_all(dir.path().join("src")).expect("a folder");
        std::fs::write(dir.path().join("src/lib.rs"), "").expect("written");
        let rewritten = naming(&["a"])
            .rewrite(Path::new("Cargo.toml"), manifest.as_bytes().to_vec())
            .expect("rewritten");
        assert_eq!(
            rewritten,
            manifest.as_bytes(),
            "a literal string is not recognised"
        );
        std::fs::write(dir.path().join("Cargo.toml"), rewritten).expect("written");
        let error = naming(&["a"]).check(dir.path()).expect_err("refused");
        let said = format!("{error:#}");
        assert!(
            said.contains("Cargo.toml: cargo reads the version of a as 0.3.0"),
            "{said}"
        );
        assert!(
            said.contains("write the version as `version = \"…\"`"),
            "{said}"
        );
        std::fs::write(
            dir.path().join("Cargo.toml"),
            manifest.replace("'0.3.0'", "\"0.3.0+mutants.worker-0\""),
        )
        .expect("written");
        naming(&["a"])
            .check(dir.path())
            .expect("a tagged copy passes");
    }

    #[test]
    fn the_lock_file_tags_only_the_workspace_packages_without_a_source() {
        let lock = "version = 4\n\n[[package]]\nname = \"a\"\nversion = \"0.1.0\"\n\
                    dependencies = [\n \"serde\",\n]\n\n[[package]]\nname = \"serde\"\n\
                    version = \"0.1.0\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n\n\
                    [[package]]\nname = \"other\"\nversion = \"0.1.0\"\n";
        let said = rewrite(&naming(&["a"]), "Cargo.lock", lock);
        assert_eq!(
            said,
            lock.replacen(
                "name = \"a\"\nversion = \"0.1.0\"",
                "name = \"a\"\nversion = \"0.1.0+mutants.worker-0\"",
                1
            )
        );
    }

    #[test]
    fn manifests_of_other_packages_and_other_lock_files_are_kept_as_they_are() {
        let nested = "[package]\nname = \"fixture\"\nversion = \"0.1.0\"\n";
        let said = rewrite(&naming(&["a"]), "a/tests/fixture/Cargo.toml", nested);
        assert_eq!(said, nested);
        assert_eq!(rewrite(&naming(&["a"]), "b/Cargo.toml", nested), nested);
        let lock = "[[package]]\nname = \"a\"\nversion = \"0.1.0\"\n";
        assert_eq!(rewrite(&naming(&["a"]), "a/Cargo.lock", lock), lock);
    }

    #[test]
    fn a_root_package_is_tagged_as_a_member_is() {
        let root = "[package]\nname = \"a\"\nversion = \"0.2.0\"\n\n[workspace]\n";
        let said = rewrite(&naming(&["a"]), "Cargo.toml", root);
        assert_eq!(
            said,
            root.replace("\"0.2.0\"", "\"0.2.0+mutants.worker-0\"")
        );
    }

    #[test]
    fn the_members_are_the_ones_cargo_lists() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mini");
        let scratch = tempfile::tempdir().expect("a folder");
        let base = scratch.path().join("worker-2");
        std::fs::create_dir(&base).expect("a folder");
        let naming = Naming::read(&root, &base).expect("read");
        let packages: Vec<&str> = naming.packages().collect();
        assert_eq!(packages, ["mini-reference", "mini-runner", "vvoc-harness"]);
        assert!(naming.manifests.contains(Path::new("runner/Cargo.toml")));
        assert!(
            naming.tag.starts_with("mutants.worker-2."),
            "{}",
            naming.tag
        );
        // The fixture's own target directory, unless the tests run with one set for every
        // workspace.
        if std::env::var_os("CARGO_TARGET_DIR").is_none()
            && std::env::var_os("CARGO_BUILD_BUILD_DIR").is_none()
        {
            assert_eq!(naming.build_dir, root.join("target"));
        }
    }

    #[test]
    fn a_folder_that_is_no_workspace_is_an_error_naming_it() {
        let dir = tempfile::tempdir().expect("a folder");
        let error = Naming::read(dir.path(), dir.path()).expect_err("refused");
        let said = format!("{error:#}");
        assert!(said.contains("cargo metadata on"), "{said}");
        assert!(said.contains(&dir.path().display().to_string()), "{said}");
    }

    #[test]
    fn the_tag_is_the_folder_name_made_an_identifier_and_a_hash_of_the_path() {
        assert_eq!(identifier("worker-3"), "worker-3");
        assert_eq!(identifier("a b_c"), "a-b-c");
        assert_eq!(identifier(""), "copy");
        let one = tag(Path::new("/checkout-a/target/mutants/worker-0"));
        let other = tag(Path::new("/checkout-b/target/mutants/worker-0"));
        assert!(one.starts_with("mutants.worker-0."), "{one}");
        assert_ne!(one, other, "two checkouts' copies are apart");
        assert_eq!(one, tag(Path::new("/checkout-a/target/mutants/worker-0")));
        assert_eq!(one.len(), "mutants.worker-0.".len() + 8, "{one}");
    }
}

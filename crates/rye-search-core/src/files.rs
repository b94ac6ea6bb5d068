//! Batch file metadata for refresh: one call stats thousands of files on all cores, which is
//! where a no-change refresh of a large tree spends its time.

use std::path::Path;
use std::time::UNIX_EPOCH;

/// What `stat` says about one path: modification time (µs since the epoch), size, and kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStat {
    pub mtime_us: i64,
    pub size: u64,
    pub kind: FileKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Missing = 0,
    File = 1,
    Dir = 2,
    Other = 3,
}

/// Follows links, like `stat(2)`.
pub fn stat(path: &Path) -> FileStat {
    match std::fs::metadata(path) {
        Err(_) => FileStat { mtime_us: 0, size: 0, kind: FileKind::Missing },
        Ok(m) => FileStat {
            mtime_us: m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                .map(|d| d.as_micros() as i64)
                .unwrap_or(0),
            size: m.len(),
            kind: if m.is_file() {
                FileKind::File
            } else if m.is_dir() {
                FileKind::Dir
            } else {
                FileKind::Other
            },
        },
    }
}

/// Stats many paths, in order, on up to `threads` threads.
pub fn stat_many<P: AsRef<Path> + Sync>(paths: &[P], threads: usize) -> Vec<FileStat> {
    let threads = threads.max(1);
    if paths.len() < 256 || threads == 1 {
        return paths.iter().map(|p| stat(p.as_ref())).collect();
    }
    let chunk = paths.len().div_ceil(threads);
    std::thread::scope(|s| {
        let parts: Vec<_> = paths
            .chunks(chunk)
            .map(|part| s.spawn(move || part.iter().map(|p| stat(p.as_ref())).collect::<Vec<_>>()))
            .collect();
        parts.into_iter().flat_map(|h| h.join().expect("stat thread panicked")).collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_files_dirs_and_missing_in_order() {
        let dir = std::env::temp_dir().join(format!("rye-stat-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("a.txt");
        std::fs::write(&file, b"hello").unwrap();
        let mut paths = vec![file.clone(), dir.clone(), dir.join("missing")];
        paths.extend(std::iter::repeat(file.clone()).take(500));
        let stats = stat_many(&paths, 2);
        assert_eq!(stats.len(), 503);
        assert_eq!((stats[0].kind, stats[0].size), (FileKind::File, 5));
        assert!(stats[0].mtime_us > 0);
        assert_eq!(stats[1].kind, FileKind::Dir);
        assert_eq!(stats[2].kind, FileKind::Missing);
        assert!(stats[3..].iter().all(|s| *s == stats[0]));
        std::fs::remove_dir_all(dir).unwrap();
    }
}

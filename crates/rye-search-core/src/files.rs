//! Batch file access for refresh: one call stats, or reads, thousands of files on all cores.
//! Stats are where a no-change refresh of a large tree spends its time; reads were a third of a
//! first index when each file took four round trips through Node's thread pool.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

/// What `stat` says about one path: modification time (µs since the epoch), size, kind, and
/// change time (µs): any change to the entry moves it, a modification time put back by a tool
/// (`touch -d`, `tar`, `rsync -t`) too. Where the system keeps none (Windows), the modification time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStat {
    pub mtime_us: i64,
    pub size: u64,
    pub kind: FileKind,
    pub ctime_us: i64,
}

impl FileStat {
    const MISSING: FileStat = FileStat { mtime_us: 0, size: 0, kind: FileKind::Missing, ctime_us: 0 };
}

/// Seconds and nanoseconds since the epoch as µs (0 before it).
#[cfg(unix)]
fn micros(secs: i64, nanos: i64) -> i64 {
    if secs < 0 {
        0
    } else {
        secs * 1_000_000 + nanos / 1_000
    }
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
        Err(_) => FileStat::MISSING,
        Ok(m) => {
            let mtime_us = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                .map(|d| d.as_micros() as i64)
                .unwrap_or(0);
            #[cfg(unix)]
            let ctime_us = {
                use std::os::unix::fs::MetadataExt;
                micros(m.ctime(), m.ctime_nsec())
            };
            #[cfg(not(unix))]
            let ctime_us = mtime_us;
            let kind = if m.is_file() {
                FileKind::File
            } else if m.is_dir() {
                FileKind::Dir
            } else {
                FileKind::Other
            };
            FileStat { mtime_us, size: m.len(), kind, ctime_us }
        }
    }
}

/// Stats many paths, in order, on up to `threads` threads.
pub fn stat_many<P: AsRef<Path> + Sync>(paths: &[P], threads: usize) -> Vec<FileStat> {
    on_threads(paths, threads, 256, stat_run)
}

/// `run` over `paths` split evenly between up to `threads` threads, the answers in order; fewer
/// than `at_least` paths stay on this thread (a thread costs more than a few system calls).
fn on_threads<P: Sync, T: Send>(
    paths: &[P],
    threads: usize,
    at_least: usize,
    run: impl Fn(&[P]) -> Vec<T> + Sync,
) -> Vec<T> {
    let threads = threads.max(1);
    if paths.len() < at_least || threads == 1 {
        return run(paths);
    }
    let chunk = paths.len().div_ceil(threads);
    let run = &run;
    std::thread::scope(|s| {
        let parts: Vec<_> = paths.chunks(chunk).map(|part| s.spawn(move || run(part))).collect();
        parts.into_iter().flat_map(|h| h.join().expect("a file thread panicked")).collect()
    })
}

/// Stats paths in order. On Unix, files of one directory are stat'ed relative to that
/// directory (`fstatat`): a walk lists each directory's files together, and resolving every
/// full path again was half the cost of a no-change refresh.
#[cfg(unix)]
fn stat_run<P: AsRef<Path>>(paths: &[P]) -> Vec<FileStat> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;

    struct Dir<'a> {
        path: &'a Path,
        fd: libc::c_int,
    }
    impl Drop for Dir<'_> {
        fn drop(&mut self) {
            if self.fd >= 0 {
                unsafe { libc::close(self.fd) };
            }
        }
    }

    let mut dir: Option<Dir> = None;
    let mut out = Vec::with_capacity(paths.len());
    for p in paths {
        let path = p.as_ref();
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            out.push(stat(path));
            continue;
        };
        if dir.as_ref().is_none_or(|d| d.path != parent) {
            let fd = match CString::new(parent.as_os_str().as_bytes()) {
                Ok(c) => unsafe { libc::open(c.as_ptr(), libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC) },
                Err(_) => -1,
            };
            dir = Some(Dir { path: parent, fd });
        }
        let fd = dir.as_ref().map_or(-1, |d| d.fd);
        let Ok(cname) = CString::new(name.as_bytes()) else {
            out.push(stat(path));
            continue;
        };
        if fd < 0 {
            out.push(stat(path));
            continue;
        }
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // Follows links, like `stat(2)` and `std::fs::metadata`.
        if unsafe { libc::fstatat(fd, cname.as_ptr(), &mut st, 0) } != 0 {
            out.push(FileStat::MISSING);
            continue;
        }
        let kind = match st.st_mode & libc::S_IFMT {
            libc::S_IFREG => FileKind::File,
            libc::S_IFDIR => FileKind::Dir,
            _ => FileKind::Other,
        };
        out.push(FileStat {
            mtime_us: micros(st.st_mtime as i64, st.st_mtime_nsec as i64),
            size: st.st_size as u64,
            kind,
            ctime_us: micros(st.st_ctime as i64, st.st_ctime_nsec as i64),
        });
    }
    out
}

#[cfg(not(unix))]
fn stat_run<P: AsRef<Path>>(paths: &[P]) -> Vec<FileStat> {
    paths.iter().map(|p| stat(p.as_ref())).collect()
}

/// What reading one file gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileRead {
    /// The whole file.
    Bytes(Vec<u8>),
    /// A regular file larger than the cap, with its size: nothing of it is kept.
    TooLarge(u64),
    /// Not a regular file once opened (a directory, FIFO, device; links followed): never read,
    /// so a FIFO swapped in after the scan cannot block a thread, nor a device fill memory.
    NotRegular,
    /// Opening or reading failed: the error's code (`ENOENT`, `EACCES`, `EMFILE`, …) and message.
    Failed { code: &'static str, message: String },
    /// The file opened is not inside the directory it had to be in (a link, or a folder on the
    /// way, swapped for one leading outside since the scan): its real path; never read.
    Outside(String),
}

/// Reads `path` if it is a regular file of at most `max_bytes`.
pub fn read(path: &Path, max_bytes: u64) -> FileRead {
    read_within(path, max_bytes, None)
}

/// Reads `path` as [`read`] does and, with `within` (a real path), only if the file opened is
/// inside it. Checked on the opened descriptor, not the path before opening: a link swapped in
/// between the scan's check and this read cannot lead outside.
pub fn read_within(path: &Path, max_bytes: u64, within: Option<&Path>) -> FileRead {
    let failed = |e: std::io::Error| FileRead::Failed { code: error_code(&e), message: e.to_string() };
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Opening a FIFO for reading would otherwise wait for a writer.
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = match options.open(path) {
        Ok(file) => file,
        Err(e) => return failed(e),
    };
    if let Some(root) = within {
        match opened_path(&file, path) {
            Ok(real) if real.starts_with(root) => {}
            Ok(real) => return FileRead::Outside(real.display().to_string()),
            Err(e) => return failed(e),
        }
    }
    let size = match file.metadata() {
        Ok(m) if !m.is_file() => return FileRead::NotRegular,
        Ok(m) => m.len(),
        Err(e) => return failed(e),
    };
    if size > max_bytes {
        return FileRead::TooLarge(size);
    }
    // A file that grew since is read up to one byte past the cap, which is enough to refuse it.
    let mut bytes = Vec::with_capacity(size as usize);
    match file.take(max_bytes.saturating_add(1)).read_to_end(&mut bytes) {
        Ok(_) if bytes.len() as u64 > max_bytes => FileRead::TooLarge(bytes.len() as u64),
        Ok(_) => FileRead::Bytes(bytes),
        Err(e) => failed(e),
    }
}

/// The real path of the file `file` is, opened from `path`: from the descriptor where the
/// system says it (Linux), else resolved again from the path.
fn opened_path(file: &std::fs::File, path: &Path) -> std::io::Result<PathBuf> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        if let Ok(real) = std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())) {
            return Ok(real);
        }
    }
    let _ = file;
    std::fs::canonicalize(path)
}

/// Reads many paths, in order, on up to `threads` threads; each `(path, within)` as
/// [`read_within`] reads it (an empty `within`: anywhere).
pub fn read_many<P: AsRef<Path> + Sync>(paths: &[(P, P)], max_bytes: u64, threads: usize) -> Vec<FileRead> {
    on_threads(paths, threads, 64, |part| {
        part.iter()
            .map(|(p, within)| {
                let within = Some(within.as_ref()).filter(|w| !w.as_os_str().is_empty());
                read_within(p.as_ref(), max_bytes, within)
            })
            .collect()
    })
}

/// The POSIX name of an I/O error, as Node names them (`err.code`).
fn error_code(e: &std::io::Error) -> &'static str {
    #[cfg(unix)]
    if let Some(errno) = e.raw_os_error() {
        const NAMES: [(libc::c_int, &str); 14] = [
            (libc::ENOENT, "ENOENT"),
            (libc::EACCES, "EACCES"),
            (libc::EPERM, "EPERM"),
            (libc::EISDIR, "EISDIR"),
            (libc::ENOTDIR, "ENOTDIR"),
            (libc::ELOOP, "ELOOP"),
            (libc::ENAMETOOLONG, "ENAMETOOLONG"),
            (libc::ENXIO, "ENXIO"),
            (libc::EMFILE, "EMFILE"),
            (libc::ENFILE, "ENFILE"),
            (libc::ENOMEM, "ENOMEM"),
            (libc::EAGAIN, "EAGAIN"),
            (libc::EIO, "EIO"),
            (libc::ESTALE, "ESTALE"),
        ];
        if let Some((_, name)) = NAMES.iter().find(|(n, _)| *n == errno) {
            return name;
        }
    }
    match e.kind() {
        std::io::ErrorKind::NotFound => "ENOENT",
        std::io::ErrorKind::PermissionDenied => "EACCES",
        std::io::ErrorKind::OutOfMemory => "ENOMEM",
        _ => "EIO",
    }
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
        paths.extend(std::iter::repeat_n(file.clone(), 500));
        let stats = stat_many(&paths, 2);
        assert_eq!(stats.len(), 503);
        assert_eq!((stats[0].kind, stats[0].size), (FileKind::File, 5));
        assert!(stats[0].mtime_us > 0);
        assert_eq!(stats[1].kind, FileKind::Dir);
        assert_eq!(stats[2].kind, FileKind::Missing);
        assert!(stats[3..].iter().all(|s| *s == stats[0]));
        // Batched (per-directory) and single stats agree, across directories and links.
        let sub = dir.join("sub");
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(sub.join("b.txt"), b"hi there").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(&file, sub.join("link.txt")).unwrap();
        let mixed: Vec<_> = (0..300)
            .map(|i| match i % 4 {
                0 => file.clone(),
                1 => sub.join("b.txt"),
                2 => sub.join("link.txt"),
                _ => sub.join("gone.txt"),
            })
            .collect();
        let batched = stat_many(&mixed, 2);
        let single: Vec<_> = mixed.iter().map(|p| stat(p)).collect();
        assert_eq!(batched, single);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn reads_regular_files_in_order_and_refuses_the_rest() {
        let dir = std::env::temp_dir().join(format!("rye-read-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let small = dir.join("small.md");
        std::fs::write(&small, b"hello").unwrap();
        let large = dir.join("large.md");
        std::fs::write(&large, vec![b'x'; 100]).unwrap();
        let mut paths = vec![small.clone(), large.clone(), dir.clone(), dir.join("missing.md")];
        #[cfg(unix)]
        {
            let fifo = dir.join("fifo.md");
            let name = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
            assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o644) }, 0);
            paths.push(fifo);
        }
        paths.extend(std::iter::repeat_n(small.clone(), 200));
        let anywhere = std::path::PathBuf::new();
        let paths: Vec<_> = paths.into_iter().map(|p| (p, anywhere.clone())).collect();
        let read = read_many(&paths, 99, 2);
        assert_eq!(read.len(), paths.len());
        assert_eq!(read[0], FileRead::Bytes(b"hello".to_vec()));
        assert_eq!(read[1], FileRead::TooLarge(100));
        assert_eq!(read[2], FileRead::NotRegular);
        assert!(matches!(&read[3], FileRead::Failed { code: "ENOENT", message } if !message.is_empty()));
        #[cfg(unix)]
        assert_eq!(read[4], FileRead::NotRegular, "a FIFO is refused, not waited on");
        assert!(read[paths.len() - 200..].iter().all(|r| *r == read[0]));
        assert_eq!(
            read_many(&[(&large, &anywhere)], 100, 1)[0],
            FileRead::Bytes(vec![b'x'; 100]),
            "the cap itself is allowed"
        );
        // Inside a directory: checked on what was opened, through links too.
        let real = std::fs::canonicalize(&dir).unwrap();
        let inner = real.join("inner");
        std::fs::create_dir_all(&inner).unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&small, inner.join("out.md")).unwrap();
            std::os::unix::fs::symlink(inner.join("in.md"), inner.join("to-in.md")).unwrap();
        }
        std::fs::write(inner.join("in.md"), b"in").unwrap();
        let read = read_many(
            &[
                (inner.join("in.md"), inner.clone()),
                (inner.join("out.md"), inner.clone()),
                (inner.join("to-in.md"), inner),
            ],
            99,
            1,
        );
        assert_eq!(read[0], FileRead::Bytes(b"in".to_vec()));
        #[cfg(unix)]
        {
            assert_eq!(read[1], FileRead::Outside(real.join("small.md").display().to_string()));
            assert_eq!(read[2], FileRead::Bytes(b"in".to_vec()));
        }
        std::fs::remove_dir_all(dir).unwrap();
    }
}

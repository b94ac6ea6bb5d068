//! A directory in memory whose written files are moved into place, not copied.
//!
//! Tantivy's `RamDirectory` copies a file's whole contents on every flush, and a writer flushes
//! at least once when it finishes: each segment written in memory was held twice, and the copy's
//! fresh pages had to be faulted in and zeroed. Here a file becomes readable, without a copy,
//! when its writer terminates; Tantivy reads no file before that.

use std::collections::HashMap;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use tantivy::directory::error::{DeleteError, OpenReadError, OpenWriteError};
use tantivy::directory::{
    AntiCallToken, FileHandle, FileSlice, TerminatingWrite, WatchCallback, WatchHandle, WritePtr,
};
use tantivy::{Directory, HasLen};

type Files = Arc<RwLock<HashMap<PathBuf, FileSlice>>>;

#[derive(Clone, Default, Debug)]
pub struct MemoryDirectory {
    files: Files,
    /// Bytes of the files in `files`, kept by every change to it under its lock: read after
    /// every search, it must not cost a walk of the files.
    bytes: Arc<AtomicU64>,
}

impl MemoryDirectory {
    fn read(&self, path: &Path) -> Result<FileSlice, OpenReadError> {
        let files = self.files.read().unwrap_or_else(|e| e.into_inner());
        files.get(path).cloned().ok_or_else(|| OpenReadError::FileDoesNotExist(path.to_path_buf()))
    }

    fn put(&self, path: &Path, data: Vec<u8>) {
        self.publish(path, FileSlice::from(data));
    }

    fn publish(&self, path: &Path, file: FileSlice) {
        let mut files = self.files.write().unwrap_or_else(|e| e.into_inner());
        self.bytes.fetch_add(file.len() as u64, Ordering::Relaxed);
        if let Some(old) = files.insert(path.to_path_buf(), file) {
            self.bytes.fetch_sub(old.len() as u64, Ordering::Relaxed);
        }
    }

    /// Bytes of the files this directory holds now (a file deleted while a reader still holds it
    /// is not counted: it goes when that reader does).
    pub fn bytes(&self) -> u64 {
        self.bytes.load(Ordering::Relaxed)
    }
}

impl Directory for MemoryDirectory {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        Ok(Arc::new(self.read(path)?))
    }

    fn open_read(&self, path: &Path) -> Result<FileSlice, OpenReadError> {
        self.read(path)
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        match self.files.write().unwrap_or_else(|e| e.into_inner()).remove(path) {
            Some(old) => {
                self.bytes.fetch_sub(old.len() as u64, Ordering::Relaxed);
                Ok(())
            }
            None => Err(DeleteError::FileDoesNotExist(path.to_path_buf())),
        }
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        Ok(self.files.read().unwrap_or_else(|e| e.into_inner()).contains_key(path))
    }

    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        let mut files = self.files.write().unwrap_or_else(|e| e.into_inner());
        if files.contains_key(path) {
            return Err(OpenWriteError::FileAlreadyExists(path.to_path_buf()));
        }
        // The file exists, empty, from now on, as it would on disk.
        files.insert(path.to_path_buf(), FileSlice::empty());
        let writer = FileWriter::new(path, self.clone());
        Ok(BufWriter::new(Box::new(writer)))
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        let bytes = self.read(path)?.read_bytes().map_err(|e| OpenReadError::wrap_io_error(e, path.to_path_buf()))?;
        Ok(bytes.as_slice().to_vec())
    }

    fn atomic_write(&self, path: &Path, data: &[u8]) -> io::Result<()> {
        self.put(path, data.to_vec());
        Ok(())
    }

    fn sync_directory(&self) -> io::Result<()> {
        Ok(())
    }

    /// Readers of this index reload by hand (`ReloadPolicy::Manual`): nothing to watch.
    fn watch(&self, _callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        Ok(WatchHandle::empty())
    }
}

struct FileWriter {
    path: PathBuf,
    data: Vec<u8>,
    /// A file grown past [`mapped::FROM_BYTES`], in its own mapping (Linux).
    #[cfg(target_os = "linux")]
    mapped: Option<mapped::Mapped>,
    directory: MemoryDirectory,
}

impl FileWriter {
    fn new(path: &Path, directory: MemoryDirectory) -> Self {
        FileWriter {
            path: path.to_path_buf(),
            data: Vec::new(),
            #[cfg(target_os = "linux")]
            mapped: None,
            directory,
        }
    }
}

impl Write for FileWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        #[cfg(target_os = "linux")]
        {
            if let Some(mapped) = &mut self.mapped {
                mapped.extend(buf)?;
                return Ok(buf.len());
            }
            if self.data.len() + buf.len() > mapped::FROM_BYTES {
                let mut moved = mapped::Mapped::with_capacity(2 * (self.data.len() + buf.len()))?;
                moved.extend(&self.data)?;
                moved.extend(buf)?;
                self.data = Vec::new();
                self.mapped = Some(moved);
                return Ok(buf.len());
            }
        }
        self.data.extend_from_slice(buf);
        Ok(buf.len())
    }

    /// The file is published when the writer terminates.
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl TerminatingWrite for FileWriter {
    fn terminate_ref(&mut self, _: AntiCallToken) -> io::Result<()> {
        #[cfg(target_os = "linux")]
        if let Some(mapped) = self.mapped.take() {
            self.directory.publish(&self.path, FileSlice::from(mapped));
            return Ok(());
        }
        self.directory.put(&self.path, std::mem::take(&mut self.data));
        Ok(())
    }
}

/// Large files in anonymous mappings that grow by moving their pages (`mremap`), never by copying
/// their bytes: a `Vec` doubles by copying itself, and in a large build the copies of a merged
/// segment's largest files made the peak of resident memory. Pages are resident only once
/// written, and go back to the system when the file is deleted.
#[cfg(target_os = "linux")]
mod mapped {
    use std::io;
    use std::ops::Deref;

    /// Files grow in a `Vec` up to this size (an edit's files are small: a mapping each would
    /// cost a system call for little). Every file of a bulk segment past it grows in place: from
    /// 32 MB, the columns, postings and term files a merge writes doubled by copying, and 63,666
    /// items added in 5,000s peaked at 420 MB instead of 357 (64 KB or 256 KB: the same).
    pub const FROM_BYTES: usize = 1 << 20;

    pub struct Mapped {
        ptr: *mut u8,
        len: usize,
        capacity: usize,
    }

    // SAFETY: the mapping is owned by this value alone; shared references only read it.
    unsafe impl Send for Mapped {}
    unsafe impl Sync for Mapped {}
    // SAFETY: the bytes stay at one address while the value lives (it is never grown once
    // shared: only `extend`, which takes `&mut self`, moves them).
    unsafe impl stable_deref_trait::StableDeref for Mapped {}

    const PAGE: usize = 4096;

    impl Mapped {
        pub fn with_capacity(bytes: usize) -> io::Result<Self> {
            let capacity = bytes.max(PAGE).next_multiple_of(PAGE);
            // SAFETY: a fresh private anonymous mapping; no address is passed in.
            let ptr = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    capacity,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                    -1,
                    0,
                )
            };
            if ptr == libc::MAP_FAILED {
                return Err(io::Error::last_os_error());
            }
            Ok(Mapped { ptr: ptr.cast(), len: 0, capacity })
        }

        pub fn extend(&mut self, bytes: &[u8]) -> io::Result<()> {
            let needed = self.len.checked_add(bytes.len()).ok_or_else(|| io::Error::other("file too large"))?;
            if needed > self.capacity {
                let capacity = needed.max(2 * self.capacity).next_multiple_of(PAGE);
                // SAFETY: `ptr` and `capacity` are this value's mapping; the kernel moves its
                // pages (and their contents) to the returned address.
                let moved = unsafe { libc::mremap(self.ptr.cast(), self.capacity, capacity, libc::MREMAP_MAYMOVE) };
                if moved == libc::MAP_FAILED {
                    return Err(io::Error::last_os_error());
                }
                (self.ptr, self.capacity) = (moved.cast(), capacity);
            }
            // SAFETY: `len + bytes.len() <= capacity` bytes are mapped and writable at `ptr`;
            // `bytes` is not inside the mapping (only `&mut self` writes it).
            unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.ptr.add(self.len), bytes.len()) };
            self.len = needed;
            Ok(())
        }
    }

    impl Deref for Mapped {
        type Target = [u8];

        fn deref(&self) -> &[u8] {
            // SAFETY: the first `len` bytes of the mapping are written.
            unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
        }
    }

    impl Drop for Mapped {
        fn drop(&mut self) {
            // SAFETY: unmaps this value's own mapping, which nothing refers to any more.
            unsafe { libc::munmap(self.ptr.cast(), self.capacity) };
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn a_mapping_grows_without_losing_what_it_holds() {
            let mut m = Mapped::with_capacity(10).unwrap();
            let mut expected = Vec::new();
            for i in 0..5000u32 {
                let piece: Vec<u8> = (0..(i % 97) as u8).map(|b| b ^ i as u8).collect();
                m.extend(&piece).unwrap();
                expected.extend_from_slice(&piece);
            }
            assert!(m.capacity > PAGE);
            assert_eq!(&*m, &expected[..]);
            let empty = Mapped::with_capacity(0).unwrap();
            assert!(empty.is_empty());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_written_in_many_pieces_reads_back_whole_however_large() {
        let dir = MemoryDirectory::default();
        // Past the size where a file moves into its own mapping on Linux, in uneven writes.
        for (name, len) in [("small", 1000usize), ("large", (40 << 20) + 12_345)] {
            let path = Path::new(name);
            let bytes: Vec<u8> = (0..len).map(|i| (i * 31 + i / 4093) as u8).collect();
            let mut writer = dir.open_write(path).unwrap();
            for piece in bytes.chunks(65_537) {
                writer.write_all(piece).unwrap();
            }
            // Nothing is readable before the writer terminates.
            assert!(dir.open_read(path).unwrap().read_bytes().unwrap().is_empty());
            writer.terminate().unwrap();
            let read = dir.open_read(path).unwrap().read_bytes().unwrap();
            assert_eq!(read.as_slice(), &bytes[..], "{name}");
            assert_eq!(dir.bytes(), len as u64, "{name}");
            dir.delete(path).unwrap();
            assert!(!dir.exists(path).unwrap());
            assert_eq!(dir.bytes(), 0);
        }
        // A file written again (`meta.json` at every commit) counts once, at its new length.
        let meta = Path::new("meta.json");
        dir.atomic_write(meta, &[1; 300]).unwrap();
        dir.atomic_write(meta, &[2; 120]).unwrap();
        assert_eq!(dir.bytes(), 120);
    }
}

//! A directory in memory whose written files are moved into place, not copied.
//!
//! Tantivy's `RamDirectory` copies a file's whole contents on every flush, and a writer flushes
//! at least once when it finishes: each segment written in memory was held twice, and the copy's
//! fresh pages had to be faulted in and zeroed. Here a file becomes readable, without a copy,
//! when its writer terminates; Tantivy reads no file before that.

use std::collections::HashMap;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use tantivy::directory::error::{DeleteError, OpenReadError, OpenWriteError};
use tantivy::directory::{
    AntiCallToken, FileHandle, FileSlice, TerminatingWrite, WatchCallback, WatchHandle, WritePtr,
};
use tantivy::Directory;

type Files = Arc<RwLock<HashMap<PathBuf, FileSlice>>>;

#[derive(Clone, Default, Debug)]
pub struct MemoryDirectory {
    files: Files,
}

impl MemoryDirectory {
    fn read(&self, path: &Path) -> Result<FileSlice, OpenReadError> {
        let files = self.files.read().unwrap_or_else(|e| e.into_inner());
        files.get(path).cloned().ok_or_else(|| OpenReadError::FileDoesNotExist(path.to_path_buf()))
    }

    fn put(&self, path: &Path, data: Vec<u8>) {
        self.files.write().unwrap_or_else(|e| e.into_inner()).insert(path.to_path_buf(), FileSlice::from(data));
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
            Some(_) => Ok(()),
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
        let writer = FileWriter { path: path.to_path_buf(), data: Vec::new(), directory: self.clone() };
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
    directory: MemoryDirectory,
}

impl Write for FileWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
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
        self.directory.put(&self.path, std::mem::take(&mut self.data));
        Ok(())
    }
}

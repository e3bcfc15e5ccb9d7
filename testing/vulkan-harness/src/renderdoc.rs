//! Frame captures with RenderDoc's in-application API, for a program running under
//! `renderdoccmd capture`: a compute-only program presents no frame, so without the API
//! RenderDoc would capture nothing.
//!
//! The API comes from `librenderdoc.so` only when RenderDoc already injected it into this
//! process (the library is looked up, never loaded): outside RenderDoc a capture is a no-op.

use std::ffi::c_void;

/// `eRENDERDOC_API_Version_1_1_2` of `renderdoc_app.h`.
const API_VERSION_1_1_2: u32 = 10102;
/// Indices of `StartFrameCapture` and `EndFrameCapture` in `RENDERDOC_API_1_1_2`, a table
/// of function pointers (`renderdoc_app.h`; stable since 1.0).
const START_FRAME_CAPTURE: usize = 19;
const END_FRAME_CAPTURE: usize = 21;
/// `RTLD_NOLOAD` (glibc): find the library only if it is already loaded.
const RTLD_NOLOAD: i32 = 0x4;

type GetApi = unsafe extern "C" fn(u32, *mut *mut c_void) -> i32;
type StartCapture = unsafe extern "C" fn(*mut c_void, *mut c_void);
type EndCapture = unsafe extern "C" fn(*mut c_void, *mut c_void) -> u32;

/// A frame capture in progress (or nothing, outside RenderDoc); [`FrameCapture::end`] ends it.
pub struct FrameCapture {
    api: Option<*const *const c_void>,
    _lib: Option<libloading::os::unix::Library>,
}

impl FrameCapture {
    /// Starts capturing every Vulkan call of this process when it runs under RenderDoc.
    pub fn start() -> FrameCapture {
        // SAFETY: the library is RenderDoc's own (already mapped into the process by its
        // layer); `RENDERDOC_GetAPI` has the signature above, fills `api` with a table that
        // lives as long as the library, which `_lib` keeps loaded, and the table's entries at
        // the indices above are `StartFrameCapture(device, window)` and
        // `EndFrameCapture(device, window)`, for which null means "every device and window".
        unsafe {
            let Ok(lib) = libloading::os::unix::Library::open(
                Some("librenderdoc.so"),
                libloading::os::unix::RTLD_NOW | RTLD_NOLOAD,
            ) else {
                return FrameCapture {
                    api: None,
                    _lib: None,
                };
            };
            let mut api: *mut c_void = std::ptr::null_mut();
            let got = lib
                .get::<GetApi>(b"RENDERDOC_GetAPI\0")
                .map(|get| get(API_VERSION_1_1_2, &mut api) == 1 && !api.is_null())
                .unwrap_or(false);
            let api = got.then_some(api as *const *const c_void);
            if let Some(table) = api {
                let start: StartCapture = std::mem::transmute(*table.add(START_FRAME_CAPTURE));
                start(std::ptr::null_mut(), std::ptr::null_mut());
            }
            FrameCapture {
                api,
                _lib: Some(lib),
            }
        }
    }

    /// True when RenderDoc is capturing (the process runs under it).
    pub fn active(&self) -> bool {
        self.api.is_some()
    }

    /// Ends the capture; true when RenderDoc wrote it (false outside RenderDoc).
    pub fn end(self) -> bool {
        let Some(table) = self.api else {
            return false;
        };
        // SAFETY: as in `start`: the table is alive while `self._lib` is.
        unsafe {
            let end: EndCapture = std::mem::transmute(*table.add(END_FRAME_CAPTURE));
            end(std::ptr::null_mut(), std::ptr::null_mut()) == 1
        }
    }
}

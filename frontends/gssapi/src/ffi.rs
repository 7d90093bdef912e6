//! The few GSS-API declarations hivestore uses, as MIT's `gssapi/gssapi.h` and
//! `gssapi/gssapi_krb5.h` define them, and the library they are loaded from.

use std::ffi::{c_char, c_int, c_void};

use libloading::Library;

pub type OmUint32 = u32;
pub type GssName = *mut c_void;
pub type GssCtx = *mut c_void;
pub type GssCred = *mut c_void;

/// `gss_buffer_desc`.
#[repr(C)]
pub struct BufferDesc {
    pub length: usize,
    pub value: *mut c_void,
}

impl BufferDesc {
    pub fn empty() -> BufferDesc {
        BufferDesc {
            length: 0,
            value: std::ptr::null_mut(),
        }
    }

    /// A descriptor of borrowed bytes, for input arguments (which GSS-API does not write).
    pub fn borrowed(bytes: &[u8]) -> BufferDesc {
        BufferDesc {
            length: bytes.len(),
            value: bytes.as_ptr() as *mut c_void,
        }
    }
}

/// `gss_OID_desc`.
#[repr(C)]
pub struct OidDesc {
    pub length: OmUint32,
    pub elements: *mut c_void,
}

pub const GSS_S_COMPLETE: OmUint32 = 0;
pub const GSS_S_CONTINUE_NEEDED: OmUint32 = 1;
/// The calling and routine error fields of a major status (`GSS_ERROR`).
pub const GSS_ERROR_MASK: OmUint32 = 0xffff_0000;
pub const GSS_C_GSS_CODE: c_int = 1;
pub const GSS_C_MECH_CODE: c_int = 2;
pub const GSS_C_ACCEPT: c_int = 2;
pub const GSS_C_INDEFINITE: OmUint32 = 0xffff_ffff;
pub const GSS_C_MUTUAL_FLAG: OmUint32 = 2;
pub const GSS_C_REPLAY_FLAG: OmUint32 = 4;
pub const GSS_C_SEQUENCE_FLAG: OmUint32 = 8;
pub const GSS_C_CONF_FLAG: OmUint32 = 16;
pub const GSS_C_INTEG_FLAG: OmUint32 = 32;

/// 1.2.840.113554.1.2.2: the Kerberos 5 mechanism.
pub const KRB5_MECH: &[u8] = b"\x2a\x86\x48\x86\xf7\x12\x01\x02\x02";
/// 1.2.840.113554.1.2.2.1: a Kerberos principal name (`GSS_KRB5_NT_PRINCIPAL_NAME`).
pub const NT_KRB5_PRINCIPAL: &[u8] = b"\x2a\x86\x48\x86\xf7\x12\x01\x02\x02\x01";
/// 1.2.840.113554.1.2.1.4: `service@host` (`GSS_C_NT_HOSTBASED_SERVICE`).
pub const NT_HOSTBASED_SERVICE: &[u8] = b"\x2a\x86\x48\x86\xf7\x12\x01\x02\x01\x04";

/// The shared object's name, and the Debian package that brings it.
pub const LIBRARY: &str = "libgssapi_krb5.so.2";
pub const DEBIAN_PACKAGE: &str = "libgssapi-krb5-2";

pub type ImportName =
    unsafe extern "C" fn(*mut OmUint32, *mut BufferDesc, *mut OidDesc, *mut GssName) -> OmUint32;
pub type AcquireCred = unsafe extern "C" fn(
    *mut OmUint32,
    GssName,
    OmUint32,
    *mut c_void,
    c_int,
    *mut GssCred,
    *mut *mut c_void,
    *mut OmUint32,
) -> OmUint32;
pub type RegisterAcceptorIdentity = unsafe extern "C" fn(*const c_char) -> OmUint32;
pub type AcceptSecContext = unsafe extern "C" fn(
    *mut OmUint32,
    *mut GssCtx,
    GssCred,
    *mut BufferDesc,
    *mut c_void,
    *mut GssName,
    *mut *mut OidDesc,
    *mut BufferDesc,
    *mut OmUint32,
    *mut OmUint32,
    *mut GssCred,
) -> OmUint32;
pub type InitSecContext = unsafe extern "C" fn(
    *mut OmUint32,
    GssCred,
    *mut GssCtx,
    GssName,
    *mut OidDesc,
    OmUint32,
    OmUint32,
    *mut c_void,
    *mut BufferDesc,
    *mut *mut OidDesc,
    *mut BufferDesc,
    *mut OmUint32,
    *mut OmUint32,
) -> OmUint32;
pub type DisplayName =
    unsafe extern "C" fn(*mut OmUint32, GssName, *mut BufferDesc, *mut *mut OidDesc) -> OmUint32;
pub type Wrap = unsafe extern "C" fn(
    *mut OmUint32,
    GssCtx,
    c_int,
    OmUint32,
    *mut BufferDesc,
    *mut c_int,
    *mut BufferDesc,
) -> OmUint32;
pub type Unwrap = unsafe extern "C" fn(
    *mut OmUint32,
    GssCtx,
    *mut BufferDesc,
    *mut BufferDesc,
    *mut c_int,
    *mut OmUint32,
) -> OmUint32;
pub type ReleaseBuffer = unsafe extern "C" fn(*mut OmUint32, *mut BufferDesc) -> OmUint32;
pub type ReleaseName = unsafe extern "C" fn(*mut OmUint32, *mut GssName) -> OmUint32;
pub type ReleaseCred = unsafe extern "C" fn(*mut OmUint32, *mut GssCred) -> OmUint32;
pub type DeleteSecContext =
    unsafe extern "C" fn(*mut OmUint32, *mut GssCtx, *mut BufferDesc) -> OmUint32;
pub type DisplayStatus = unsafe extern "C" fn(
    *mut OmUint32,
    OmUint32,
    c_int,
    *mut OidDesc,
    *mut OmUint32,
    *mut BufferDesc,
) -> OmUint32;

/// The loaded library and its functions.
pub struct Functions {
    /// Kept loaded for as long as the function pointers below are used (the whole process).
    _library: Library,
    pub import_name: ImportName,
    pub acquire_cred: AcquireCred,
    pub register_acceptor_identity: RegisterAcceptorIdentity,
    pub accept_sec_context: AcceptSecContext,
    pub init_sec_context: InitSecContext,
    pub display_name: DisplayName,
    pub wrap: Wrap,
    pub unwrap: Unwrap,
    pub release_buffer: ReleaseBuffer,
    pub release_name: ReleaseName,
    pub release_cred: ReleaseCred,
    pub delete_sec_context: DeleteSecContext,
    pub display_status: DisplayStatus,
}

impl Functions {
    pub fn load() -> Result<Functions, String> {
        // SAFETY: loading MIT's GSS-API library runs its initialisers, which have no
        // preconditions; the library stays loaded in the returned value.
        let library = unsafe { Library::new(LIBRARY) }.map_err(|error| {
            format!(
                "Kerberos needs MIT's GSS-API library {LIBRARY}, which could not be loaded \
                 ({error}); on Debian it comes with the package {DEBIAN_PACKAGE}"
            )
        })?;
        macro_rules! symbol {
            ($name:literal, $type:ty) => {{
                // SAFETY: the symbol is the C function of this name in MIT's library, and
                // `$type` is its prototype from gssapi.h; the pointer is copied out while
                // `library` is kept alive beside it.
                let function: $type = *unsafe { library.get::<$type>($name) }.map_err(|error| {
                    format!(
                        "{LIBRARY} has no function {}: {error}",
                        String::from_utf8_lossy(&$name[..$name.len() - 1])
                    )
                })?;
                function
            }};
        }
        Ok(Functions {
            import_name: symbol!(b"gss_import_name\0", ImportName),
            acquire_cred: symbol!(b"gss_acquire_cred\0", AcquireCred),
            register_acceptor_identity: symbol!(
                b"krb5_gss_register_acceptor_identity\0",
                RegisterAcceptorIdentity
            ),
            accept_sec_context: symbol!(b"gss_accept_sec_context\0", AcceptSecContext),
            init_sec_context: symbol!(b"gss_init_sec_context\0", InitSecContext),
            display_name: symbol!(b"gss_display_name\0", DisplayName),
            wrap: symbol!(b"gss_wrap\0", Wrap),
            unwrap: symbol!(b"gss_unwrap\0", Unwrap),
            release_buffer: symbol!(b"gss_release_buffer\0", ReleaseBuffer),
            release_name: symbol!(b"gss_release_name\0", ReleaseName),
            release_cred: symbol!(b"gss_release_cred\0", ReleaseCred),
            delete_sec_context: symbol!(b"gss_delete_sec_context\0", DeleteSecContext),
            display_status: symbol!(b"gss_display_status\0", DisplayStatus),
            _library: library,
        })
    }
}

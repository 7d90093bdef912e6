//! A small safe wrapper over MIT Kerberos' GSS-API (RFC 2743), for hivestore's SASL GSSAPI.
//!
//! The library (`libgssapi_krb5.so.2`) is loaded at run time by [`Gss::load`], so hivestore
//! builds and runs without Kerberos unless Kerberos is configured. All unsafe code of hivestore's
//! Kerberos support is in this crate; names, credentials and contexts are released on drop.

mod ffi;
mod host;

use std::ffi::{c_int, c_void, CString};
use std::path::Path;
use std::sync::OnceLock;

use ffi::{BufferDesc, Functions, GssCred, GssCtx, GssName, OidDesc, OmUint32};

pub use host::canonical_host_name;

/// A GSS-API failure: what was being done, and the library's major and minor status text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(String);

impl std::fmt::Display for Error {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

static LOADED: OnceLock<Result<Functions, String>> = OnceLock::new();

/// The loaded GSS-API library.
#[derive(Clone, Copy)]
pub struct Gss {
    functions: &'static Functions,
}

impl Gss {
    /// Loads `libgssapi_krb5.so.2` (once per process); the error names the missing library and
    /// the Debian package that brings it.
    pub fn load() -> Result<Gss, Error> {
        match LOADED.get_or_init(Functions::load) {
            Ok(functions) => Ok(Gss { functions }),
            Err(message) => Err(Error(message.clone())),
        }
    }

    /// Makes `keytab` the acceptor's key table for the whole process (MIT's
    /// `krb5_gss_register_acceptor_identity`).
    pub fn register_keytab(self, keytab: &Path) -> Result<(), Error> {
        let path = keytab
            .to_str()
            .and_then(|text| CString::new(text).ok())
            .ok_or_else(|| {
                Error(format!(
                    "keytab path {} is not a C string",
                    keytab.display()
                ))
            })?;
        // SAFETY: `path` is a NUL-terminated string that outlives the call; MIT copies it.
        let major = unsafe { (self.functions.register_acceptor_identity)(path.as_ptr()) };
        if major & ffi::GSS_ERROR_MASK != 0 {
            return Err(self.error(
                &format!("registering keytab {}", keytab.display()),
                major,
                0,
            ));
        }
        Ok(())
    }

    /// The acceptor credential of `principal` (`hive/host@REALM`) from the registered keytab;
    /// fails when the keytab has no key for it.
    pub fn acceptor_credential(self, principal: &str) -> Result<Credential, Error> {
        let name = self.import_name(principal, ffi::NT_KRB5_PRINCIPAL)?;
        let mut minor = 0;
        let mut raw: GssCred = std::ptr::null_mut();
        // SAFETY: `name` is a valid imported name; the default mechanism set (null) and
        // optional outputs (null) are allowed; `raw` receives a credential we release on drop.
        let major = unsafe {
            (self.functions.acquire_cred)(
                &mut minor,
                name.raw,
                ffi::GSS_C_INDEFINITE,
                std::ptr::null_mut(),
                ffi::GSS_C_ACCEPT,
                &mut raw,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        };
        if major & ffi::GSS_ERROR_MASK != 0 {
            return Err(self.error(
                &format!("acquiring the credential of {principal}"),
                major,
                minor,
            ));
        }
        Ok(Credential { gss: self, raw })
    }

    /// A new acceptor (server) context using `credential`.
    pub fn acceptor(self, credential: &std::sync::Arc<Credential>) -> Context {
        Context {
            gss: self,
            raw: std::ptr::null_mut(),
            role: Role::Acceptor(credential.clone()),
            complete: false,
            peer: None,
        }
    }

    /// A new initiator (client) context for `service@host`, using the default credential cache
    /// (`KRB5CCNAME`); for tests of the acceptor.
    pub fn initiator(self, service: &str) -> Result<Context, Error> {
        let target = self.import_name(service, ffi::NT_HOSTBASED_SERVICE)?;
        Ok(Context {
            gss: self,
            raw: std::ptr::null_mut(),
            role: Role::Initiator(target),
            complete: false,
            peer: None,
        })
    }

    fn import_name(self, text: &str, kind: &'static [u8]) -> Result<Name, Error> {
        let mut minor = 0;
        let mut raw: GssName = std::ptr::null_mut();
        let mut buffer = BufferDesc::borrowed(text.as_bytes());
        let mut oid = oid(kind);
        // SAFETY: `buffer` and `oid` point at bytes that outlive the call and are only read;
        // `raw` receives a name we release on drop.
        let major =
            unsafe { (self.functions.import_name)(&mut minor, &mut buffer, &mut oid, &mut raw) };
        if major & ffi::GSS_ERROR_MASK != 0 {
            return Err(self.error(&format!("importing the name {text:?}"), major, minor));
        }
        Ok(Name { gss: self, raw })
    }

    fn display_name(self, name: &Name) -> Result<String, Error> {
        let mut minor = 0;
        let mut buffer = BufferDesc::empty();
        // SAFETY: `name.raw` is a valid name; `buffer` receives library memory that
        // `take_buffer` copies and releases.
        let major = unsafe {
            (self.functions.display_name)(&mut minor, name.raw, &mut buffer, std::ptr::null_mut())
        };
        if major & ffi::GSS_ERROR_MASK != 0 {
            return Err(self.error("displaying the peer's name", major, minor));
        }
        let bytes = self.take_buffer(&mut buffer);
        String::from_utf8(bytes).map_err(|_| Error("the peer's name is not UTF-8".to_string()))
    }

    /// Copies a buffer the library allocated, then releases it.
    fn take_buffer(self, buffer: &mut BufferDesc) -> Vec<u8> {
        if buffer.value.is_null() {
            return Vec::new();
        }
        // SAFETY: the library filled `buffer` with `length` readable bytes at `value`.
        let bytes = unsafe { std::slice::from_raw_parts(buffer.value as *const u8, buffer.length) }
            .to_vec();
        let mut minor = 0;
        // SAFETY: `buffer` was allocated by the library and is released once, here.
        unsafe { (self.functions.release_buffer)(&mut minor, buffer) };
        bytes
    }

    /// The text of one kind of status code (all its messages, joined).
    fn status_text(self, code: OmUint32, kind: c_int) -> String {
        let mut texts = Vec::new();
        let mut message_context: OmUint32 = 0;
        // The library hands out one message per call; a handful at most exist.
        for _ in 0..8 {
            let mut minor = 0;
            let mut buffer = BufferDesc::empty();
            // SAFETY: all pointers are to locals; a null mechanism means the default one;
            // `buffer` receives library memory that `take_buffer` releases.
            let major = unsafe {
                (self.functions.display_status)(
                    &mut minor,
                    code,
                    kind,
                    std::ptr::null_mut(),
                    &mut message_context,
                    &mut buffer,
                )
            };
            if major & ffi::GSS_ERROR_MASK != 0 {
                break;
            }
            let text = String::from_utf8_lossy(&self.take_buffer(&mut buffer)).into_owned();
            if !text.is_empty() {
                texts.push(text);
            }
            if message_context == 0 {
                break;
            }
        }
        texts.join("; ")
    }

    fn error(self, doing: &str, major: OmUint32, minor: OmUint32) -> Error {
        let mut text = format!(
            "GSS-API error {doing}: {}",
            self.status_text(major, ffi::GSS_C_GSS_CODE)
        );
        if minor != 0 {
            text.push_str(&format!(
                " ({})",
                self.status_text(minor, ffi::GSS_C_MECH_CODE)
            ));
        }
        Error(text)
    }
}

fn oid(bytes: &'static [u8]) -> OidDesc {
    OidDesc {
        length: bytes.len() as OmUint32,
        elements: bytes.as_ptr() as *mut c_void,
    }
}

struct Name {
    gss: Gss,
    raw: GssName,
}

impl Drop for Name {
    fn drop(&mut self) {
        let mut minor = 0;
        // SAFETY: `raw` is a name the library made (or null, which it ignores), released once.
        unsafe { (self.gss.functions.release_name)(&mut minor, &mut self.raw) };
    }
}

// SAFETY: a name is only read after import, and MIT's names carry no thread affinity.
unsafe impl Send for Name {}

/// An acceptor's credential: the service's key from the keytab. Shared by all connections.
pub struct Credential {
    gss: Gss,
    raw: GssCred,
}

impl Drop for Credential {
    fn drop(&mut self) {
        let mut minor = 0;
        // SAFETY: `raw` is the credential the library gave us, released once.
        unsafe { (self.gss.functions.release_cred)(&mut minor, &mut self.raw) };
    }
}

// SAFETY: MIT's credentials guard their mutable state with a lock of their own; accepting with
// one credential from several threads at once is supported.
unsafe impl Send for Credential {}
// SAFETY: as above; the handle is never changed after acquisition.
unsafe impl Sync for Credential {}

enum Role {
    Acceptor(std::sync::Arc<Credential>),
    Initiator(Name),
}

/// What a context step produced.
#[derive(Debug, PartialEq, Eq)]
pub struct Step {
    /// The token to send to the peer (possibly empty).
    pub token: Vec<u8>,
    /// The context is established.
    pub complete: bool,
}

/// One security context (one connection's), deleted on drop.
pub struct Context {
    gss: Gss,
    raw: GssCtx,
    role: Role,
    complete: bool,
    peer: Option<String>,
}

// SAFETY: a context is used by one thread at a time (`&mut self`), and MIT's contexts carry no
// thread affinity.
unsafe impl Send for Context {}

impl Context {
    /// Takes the peer's next token; returns the token to send back.
    pub fn step(&mut self, token: &[u8]) -> Result<Step, Error> {
        if self.complete {
            return Err(Error(
                "the security context is already established".to_string(),
            ));
        }
        let functions = self.gss.functions;
        let mut minor = 0;
        let mut input = BufferDesc::borrowed(token);
        let mut output = BufferDesc::empty();
        let major = match &self.role {
            Role::Acceptor(credential) => {
                let mut source: GssName = std::ptr::null_mut();
                // SAFETY: `self.raw` is null or the context of earlier steps; the credential is
                // valid; `input` is read only; `source` and `output` receive library memory
                // released below; the other outputs are optional (null).
                let major = unsafe {
                    (functions.accept_sec_context)(
                        &mut minor,
                        &mut self.raw,
                        credential.raw,
                        &mut input,
                        std::ptr::null_mut(),
                        &mut source,
                        std::ptr::null_mut(),
                        &mut output,
                        std::ptr::null_mut(),
                        std::ptr::null_mut(),
                        std::ptr::null_mut(),
                    )
                };
                let source = Name {
                    gss: self.gss,
                    raw: source,
                };
                if major == ffi::GSS_S_COMPLETE && !source.raw.is_null() {
                    self.peer = Some(self.gss.display_name(&source)?);
                }
                major
            }
            Role::Initiator(target) => {
                let mut mechanism = oid(ffi::KRB5_MECH);
                let flags = ffi::GSS_C_MUTUAL_FLAG
                    | ffi::GSS_C_REPLAY_FLAG
                    | ffi::GSS_C_SEQUENCE_FLAG
                    | ffi::GSS_C_CONF_FLAG
                    | ffi::GSS_C_INTEG_FLAG;
                // SAFETY: as for the acceptor; the default credential (null) is allowed, the
                // first call takes no input token.
                unsafe {
                    (functions.init_sec_context)(
                        &mut minor,
                        std::ptr::null_mut(),
                        &mut self.raw,
                        target.raw,
                        &mut mechanism,
                        flags,
                        0,
                        std::ptr::null_mut(),
                        &mut input,
                        std::ptr::null_mut(),
                        &mut output,
                        std::ptr::null_mut(),
                        std::ptr::null_mut(),
                    )
                }
            }
        };
        let token = self.gss.take_buffer(&mut output);
        if major & ffi::GSS_ERROR_MASK != 0 {
            let doing = match self.role {
                Role::Acceptor(_) => "accepting the client's token",
                Role::Initiator(_) => "initiating the context",
            };
            return Err(self.gss.error(doing, major, minor));
        }
        self.complete = major & ffi::GSS_S_CONTINUE_NEEDED == 0;
        Ok(Step {
            token,
            complete: self.complete,
        })
    }

    /// The context is established (both sides done).
    pub fn is_established(&self) -> bool {
        self.complete
    }

    /// The peer's principal (`alice@REALM`), once an acceptor's context is established.
    pub fn peer(&self) -> Option<&str> {
        self.peer.as_deref()
    }

    /// Protects `message`: integrity, and confidentiality too when `confidential`.
    pub fn wrap(&mut self, message: &[u8], confidential: bool) -> Result<Vec<u8>, Error> {
        self.established()?;
        let mut minor = 0;
        let mut input = BufferDesc::borrowed(message);
        let mut output = BufferDesc::empty();
        let mut conf_state: c_int = 0;
        // SAFETY: the context is established; `input` is read only; `output` receives library
        // memory that `take_buffer` releases.
        let major = unsafe {
            (self.gss.functions.wrap)(
                &mut minor,
                self.raw,
                c_int::from(confidential),
                0,
                &mut input,
                &mut conf_state,
                &mut output,
            )
        };
        let wrapped = self.gss.take_buffer(&mut output);
        if major & ffi::GSS_ERROR_MASK != 0 {
            return Err(self.gss.error("wrapping a message", major, minor));
        }
        if confidential && conf_state == 0 {
            return Err(Error("gss_wrap did not encrypt the message".to_string()));
        }
        Ok(wrapped)
    }

    /// Checks (and decrypts) a wrapped message; says whether it was encrypted.
    pub fn unwrap(&mut self, wrapped: &[u8]) -> Result<(Vec<u8>, bool), Error> {
        self.established()?;
        let mut minor = 0;
        let mut input = BufferDesc::borrowed(wrapped);
        let mut output = BufferDesc::empty();
        let mut conf_state: c_int = 0;
        // SAFETY: as for `wrap`; the QOP output is optional (null).
        let major = unsafe {
            (self.gss.functions.unwrap)(
                &mut minor,
                self.raw,
                &mut input,
                &mut output,
                &mut conf_state,
                std::ptr::null_mut(),
            )
        };
        let message = self.gss.take_buffer(&mut output);
        if major & ffi::GSS_ERROR_MASK != 0 {
            return Err(self.gss.error("unwrapping a message", major, minor));
        }
        Ok((message, conf_state != 0))
    }

    fn established(&self) -> Result<(), Error> {
        if self.complete {
            Ok(())
        } else {
            Err(Error(
                "the security context is not established yet".to_string(),
            ))
        }
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        if self.raw.is_null() {
            return;
        }
        let mut minor = 0;
        // SAFETY: `raw` is the context the library made, deleted once; no output token wanted.
        unsafe {
            (self.gss.functions.delete_sec_context)(&mut minor, &mut self.raw, std::ptr::null_mut())
        };
    }
}

//! The dump format, byte by byte (`docs/backup-format.md`): a header, the store's keys and
//! values in key order in checksummed blocks, and a trailer that counts them. Written and
//! read as a stream, a block at a time, so memory stays bounded whatever the store's size.

use std::io::{Read, Write};

use crate::error::{Error, Result};
use crate::storage::size::{KeyspaceSize, LiveSize};

/// The first eight bytes of every dump.
pub const DUMP_MAGIC: [u8; 8] = *b"HVSTDUMP";
/// The version of the dump format this build writes and the newest it reads.
pub const DUMP_FORMAT_VERSION: u16 = 1;

/// Header offsets: the magic, then the format version (u16 BE).
pub const HEADER_VERSION_OFFSET: usize = DUMP_MAGIC.len();
/// The store format version (`STORE_FORMAT_VERSION`) of the dumped store.
pub const HEADER_STORE_FORMAT_OFFSET: usize = HEADER_VERSION_OFFSET + 2;
/// The value format version (`VALUE_FORMAT_VERSION`) of the dumped values.
pub const HEADER_VALUE_FORMAT_OFFSET: usize = HEADER_STORE_FORMAT_OFFSET + 1;
/// How the blocks' payloads are compressed ([`Compression`]).
pub const HEADER_COMPRESSION_OFFSET: usize = HEADER_VALUE_FORMAT_OFFSET + 1;
/// Three reserved bytes, zero.
pub const HEADER_RESERVED_OFFSET: usize = HEADER_COMPRESSION_OFFSET + 1;
/// When the dump was made: milliseconds since the epoch, i64 BE.
pub const HEADER_CREATED_OFFSET: usize = HEADER_RESERVED_OFFSET + 3;
/// The block size the writer aimed at, u32 BE (for information; readers use their limits).
pub const HEADER_BLOCK_BYTES_OFFSET: usize = HEADER_CREATED_OFFSET + 8;
/// The store's UUID as 36 characters of text.
pub const HEADER_UUID_OFFSET: usize = HEADER_BLOCK_BYTES_OFFSET + 4;
/// The length of the UUID field.
pub const HEADER_UUID_LEN: usize = 36;
/// The writing hivestore's version, UTF-8 padded with zeros.
pub const HEADER_HIVESTORE_VERSION_OFFSET: usize = HEADER_UUID_OFFSET + HEADER_UUID_LEN;
/// The length of the version field.
pub const HEADER_HIVESTORE_VERSION_LEN: usize = 32;
/// The header's length before its CRC32C.
pub const HEADER_LEN: usize = HEADER_HIVESTORE_VERSION_OFFSET + HEADER_HIVESTORE_VERSION_LEN;

/// A block's tag: a block of entries.
pub const BLOCK_TAG_DATA: u8 = b'B';
/// A block's tag: the trailer, the last block.
pub const BLOCK_TAG_TRAILER: u8 = b'T';
/// A block header: tag (1), sequence number (u32 BE), entry count (u32 BE), payload length
/// before compression (u32 BE), stored payload length (u32 BE), then the CRC32C (u32 BE) of
/// these 17 bytes and the stored payload.
pub const BLOCK_HEADER_LEN: usize = 1 + 4 + 4 + 4 + 4 + 4;
/// The payload bytes a writer gathers before it closes a block.
pub const DUMP_BLOCK_BYTES: usize = 1024 * 1024;
/// The largest key plus value one entry may have: what a reader allocates at most for a
/// block (a longer entry is refused by the writer and the reader alike).
pub const ENTRY_BYTES_MAX: usize = 256 * 1024 * 1024;
/// An entry's two length fields (u32 BE each).
pub const ENTRY_OVERHEAD_BYTES: usize = 8;
/// The largest payload a block may declare.
pub const BLOCK_PAYLOAD_BYTES_MAX: usize =
    DUMP_BLOCK_BYTES + ENTRY_BYTES_MAX + ENTRY_OVERHEAD_BYTES;
/// The zstd level of compressed dumps.
pub const ZSTD_LEVEL: i32 = 3;
/// One keyspace's line in the trailer: tag, keys, key bytes, value bytes.
pub const TRAILER_KEYSPACE_LEN: usize = 1 + 8 + 8 + 8;
/// The most keyspaces a trailer may list (one per tag).
pub const TRAILER_KEYSPACE_COUNT_MAX: usize = 256;

const _: () = assert!(HEADER_LEN == 96);
const _: () = assert!(BLOCK_PAYLOAD_BYTES_MAX < u32::MAX as usize);
const _: () = assert!(TRAILER_KEYSPACE_COUNT_MAX * TRAILER_KEYSPACE_LEN < DUMP_BLOCK_BYTES);

/// How blocks' payloads are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// As they are (byte 0).
    None,
    /// zstd frames at [`ZSTD_LEVEL`] (byte 1).
    Zstd,
}

impl Compression {
    fn byte(self) -> u8 {
        match self {
            Compression::None => 0,
            Compression::Zstd => 1,
        }
    }

    fn from_byte(byte: u8) -> Option<Compression> {
        match byte {
            0 => Some(Compression::None),
            1 => Some(Compression::Zstd),
            _ => None,
        }
    }
}

/// What a dump's header says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DumpHeader {
    /// The dump format version.
    pub format_version: u16,
    /// The store format version of the dumped store.
    pub store_format_version: u8,
    /// The value format version of its values.
    pub value_format_version: u8,
    /// How the blocks are compressed.
    pub compression: Compression,
    /// When the dump was made, milliseconds since the epoch.
    pub created_unix_ms: i64,
    /// The block size the writer aimed at.
    pub block_bytes: u32,
    /// The dumped store's UUID (empty for a store without one).
    pub store_uuid: String,
    /// The version of hivestore that wrote the dump.
    pub hivestore_version: String,
}

impl DumpHeader {
    /// A header for a dump made now by this build of a store with `store_uuid`.
    pub fn now(store_uuid: String, compression: Compression) -> DumpHeader {
        let created_unix_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |elapsed| {
                i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX)
            });
        DumpHeader {
            format_version: DUMP_FORMAT_VERSION,
            store_format_version: crate::store::STORE_FORMAT_VERSION,
            value_format_version: crate::storage::values::VALUE_FORMAT_VERSION,
            compression,
            created_unix_ms,
            block_bytes: DUMP_BLOCK_BYTES as u32,
            store_uuid,
            hivestore_version: env!("CARGO_PKG_VERSION").to_string(),
        }
    }

    fn encode(&self) -> [u8; HEADER_LEN] {
        let mut bytes = [0u8; HEADER_LEN];
        bytes[..DUMP_MAGIC.len()].copy_from_slice(&DUMP_MAGIC);
        bytes[HEADER_VERSION_OFFSET..HEADER_STORE_FORMAT_OFFSET]
            .copy_from_slice(&self.format_version.to_be_bytes());
        bytes[HEADER_STORE_FORMAT_OFFSET] = self.store_format_version;
        bytes[HEADER_VALUE_FORMAT_OFFSET] = self.value_format_version;
        bytes[HEADER_COMPRESSION_OFFSET] = self.compression.byte();
        bytes[HEADER_CREATED_OFFSET..HEADER_BLOCK_BYTES_OFFSET]
            .copy_from_slice(&self.created_unix_ms.to_be_bytes());
        bytes[HEADER_BLOCK_BYTES_OFFSET..HEADER_UUID_OFFSET]
            .copy_from_slice(&self.block_bytes.to_be_bytes());
        copy_padded(
            &mut bytes[HEADER_UUID_OFFSET..HEADER_HIVESTORE_VERSION_OFFSET],
            &self.store_uuid,
        );
        copy_padded(
            &mut bytes[HEADER_HIVESTORE_VERSION_OFFSET..],
            &self.hivestore_version,
        );
        bytes
    }

    fn decode(bytes: &[u8; HEADER_LEN]) -> Result<DumpHeader> {
        if bytes[..DUMP_MAGIC.len()] != DUMP_MAGIC {
            return Err(refused(
                "the header",
                "not a hivestore dump (its first bytes are not HVSTDUMP)",
            ));
        }
        let format_version = u16::from_be_bytes([
            bytes[HEADER_VERSION_OFFSET],
            bytes[HEADER_VERSION_OFFSET + 1],
        ]);
        let compression =
            Compression::from_byte(bytes[HEADER_COMPRESSION_OFFSET]).ok_or_else(|| {
                refused(
                    "the header",
                    format!("unknown compression {}", bytes[HEADER_COMPRESSION_OFFSET]),
                )
            })?;
        Ok(DumpHeader {
            format_version,
            store_format_version: bytes[HEADER_STORE_FORMAT_OFFSET],
            value_format_version: bytes[HEADER_VALUE_FORMAT_OFFSET],
            compression,
            created_unix_ms: i64::from_be_bytes(field(bytes, HEADER_CREATED_OFFSET)),
            block_bytes: u32::from_be_bytes(field(bytes, HEADER_BLOCK_BYTES_OFFSET)),
            store_uuid: padded_text(&bytes[HEADER_UUID_OFFSET..HEADER_HIVESTORE_VERSION_OFFSET]),
            hivestore_version: padded_text(&bytes[HEADER_HIVESTORE_VERSION_OFFSET..]),
        })
    }

    /// `Err` unless this build can restore the dump: not a newer dump format, and the same
    /// store and value formats (rkyv archives have no layout of their own to convert from).
    pub fn check_readable(&self) -> Result<()> {
        if self.format_version > DUMP_FORMAT_VERSION || self.format_version == 0 {
            return Err(refused(
                "the header",
                format!(
                    "dump format version {} (written by hivestore {}); this build reads versions 1 to {DUMP_FORMAT_VERSION}: restore it with a newer hivestore",
                    self.format_version, self.hivestore_version
                ),
            ));
        }
        let store_format = crate::store::STORE_FORMAT_VERSION;
        if self.store_format_version != store_format {
            return Err(refused(
                "the header",
                format!(
                    "the dump holds a store of storage format {}; this build's stores are format {store_format}",
                    self.store_format_version
                ),
            ));
        }
        let value_format = crate::storage::values::VALUE_FORMAT_VERSION;
        if self.value_format_version != value_format {
            return Err(refused(
                "the header",
                format!(
                    "the dump holds values of format {}; this build's values are format {value_format}",
                    self.value_format_version
                ),
            ));
        }
        Ok(())
    }
}

fn field<const N: usize>(bytes: &[u8], offset: usize) -> [u8; N] {
    let mut out = [0u8; N];
    out.copy_from_slice(&bytes[offset..offset + N]);
    out
}

fn copy_padded(out: &mut [u8], text: &str) {
    let len = text.len().min(out.len());
    out[..len].copy_from_slice(&text.as_bytes()[..len]);
}

fn padded_text(bytes: &[u8]) -> String {
    let end = bytes
        .iter()
        .position(|byte| *byte == 0)
        .unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

/// The error refusing a dump: `place` is the header, a block by number, or the trailer.
pub(crate) fn refused(place: &str, reason: impl std::fmt::Display) -> Error {
    Error::InvalidInput(format!("the dump is refused at {place}: {reason}"))
}

fn write_failed(error: std::io::Error) -> Error {
    Error::Storage(format!("cannot write the dump: {error}"))
}

/// Counts per keyspace as entries go by.
pub(crate) struct KeyspaceCounter(Box<[KeyspaceSize; 256]>);

impl KeyspaceCounter {
    pub(crate) fn new() -> Self {
        KeyspaceCounter(Box::new([KeyspaceSize::default(); 256]))
    }

    pub(crate) fn count(&mut self, key: &[u8], value_len: usize) {
        let tag = key.first().copied().unwrap_or(0);
        let keyspace = &mut self.0[usize::from(tag)];
        keyspace.keys += 1;
        keyspace.key_bytes += key.len() as u64;
        keyspace.value_bytes += value_len as u64;
    }

    pub(crate) fn sizes(&self) -> LiveSize {
        let keyspaces = (0..=u8::MAX)
            .zip(self.0.iter())
            .filter(|(_, keyspace)| keyspace.keys > 0)
            .map(|(tag, keyspace)| KeyspaceSize { tag, ..*keyspace })
            .collect();
        LiveSize { keyspaces }
    }
}

/// A stream that keeps the CRC32C of everything that passed through it.
struct Checksummed<S> {
    inner: S,
    crc: u32,
    bytes: u64,
}

impl<S> Checksummed<S> {
    fn new(inner: S) -> Self {
        Checksummed {
            inner,
            crc: 0,
            bytes: 0,
        }
    }
}

impl<W: Write> Checksummed<W> {
    fn write_all(&mut self, bytes: &[u8]) -> Result<()> {
        self.inner.write_all(bytes).map_err(write_failed)?;
        self.crc = crc32c::crc32c_append(self.crc, bytes);
        self.bytes += bytes.len() as u64;
        Ok(())
    }
}

impl<R: Read> Checksummed<R> {
    /// Fills `buffer`; `Ok(false)` when the stream ended before its first byte.
    fn read_exact_or_end(&mut self, buffer: &mut [u8], place: &str) -> Result<bool> {
        let mut filled = 0;
        while filled < buffer.len() {
            match self.inner.read(&mut buffer[filled..]) {
                Ok(0) if filled == 0 => return Ok(false),
                Ok(0) => {
                    return Err(refused(
                        place,
                        format!(
                            "truncated: the dump ends {filled} bytes into {} expected",
                            buffer.len()
                        ),
                    ))
                }
                Ok(read) => filled += read,
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                Err(error) => return Err(Error::Storage(format!("cannot read the dump: {error}"))),
            }
        }
        self.crc = crc32c::crc32c_append(self.crc, buffer);
        self.bytes += buffer.len() as u64;
        Ok(true)
    }

    fn read_exact(&mut self, buffer: &mut [u8], place: &str) -> Result<()> {
        if self.read_exact_or_end(buffer, place)? {
            Ok(())
        } else {
            Err(refused(place, "truncated: the dump ends here"))
        }
    }
}

/// What a dump wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DumpSummary {
    /// The keys and bytes per keyspace, as the trailer says.
    pub sizes: LiveSize,
    /// The bytes of the dump.
    pub dump_bytes: u64,
}

/// Writes a dump: the header at once, entries in strictly increasing key order with
/// [`DumpWriter::push`], and the trailer with [`DumpWriter::finish`].
pub struct DumpWriter<W: Write> {
    out: Checksummed<W>,
    compression: Compression,
    payload: Vec<u8>,
    entry_count: u32,
    sequence: u32,
    last_key: Option<Vec<u8>>,
    counter: KeyspaceCounter,
}

impl<W: Write> DumpWriter<W> {
    /// Writes `header` to `out`.
    pub fn start(out: W, header: &DumpHeader) -> Result<Self> {
        let mut out = Checksummed::new(out);
        let encoded = header.encode();
        out.write_all(&encoded)?;
        out.write_all(&crc32c::crc32c(&encoded).to_be_bytes())?;
        Ok(DumpWriter {
            out,
            compression: header.compression,
            payload: Vec::with_capacity(DUMP_BLOCK_BYTES + ENTRY_OVERHEAD_BYTES),
            entry_count: 0,
            sequence: 0,
            last_key: None,
            counter: KeyspaceCounter::new(),
        })
    }

    /// Adds an entry; its key must follow the last one's.
    pub fn push(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        if let Some(last) = &self.last_key {
            if key <= last.as_slice() {
                return Err(Error::Internal(format!(
                    "a dump's keys must grow: {} after {}",
                    crate::error::escape_bytes(key),
                    crate::error::escape_bytes(last)
                )));
            }
        }
        if key.len() + value.len() > ENTRY_BYTES_MAX {
            return Err(Error::corruption(
                key,
                format!(
                    "{} bytes of key and value, over the dump's entry limit of {ENTRY_BYTES_MAX}",
                    key.len() + value.len()
                ),
            ));
        }
        if !self.payload.is_empty()
            && self.payload.len() + key.len() + value.len() + ENTRY_OVERHEAD_BYTES
                > DUMP_BLOCK_BYTES
        {
            self.write_block()?;
        }
        self.payload
            .extend_from_slice(&(key.len() as u32).to_be_bytes());
        self.payload.extend_from_slice(key);
        self.payload
            .extend_from_slice(&(value.len() as u32).to_be_bytes());
        self.payload.extend_from_slice(value);
        self.entry_count += 1;
        self.counter.count(key, value.len());
        match &mut self.last_key {
            Some(last) => {
                last.clear();
                last.extend_from_slice(key);
            }
            None => self.last_key = Some(key.to_vec()),
        }
        Ok(())
    }

    fn write_block(&mut self) -> Result<()> {
        let compressed;
        let stored: &[u8] = match self.compression {
            Compression::None => &self.payload,
            Compression::Zstd => {
                compressed = zstd::block::compress(&self.payload, ZSTD_LEVEL).map_err(|error| {
                    Error::Internal(format!("zstd cannot compress a block: {error}"))
                })?;
                &compressed
            }
        };
        let raw_len = self.payload.len() as u32;
        let header = block_header(
            BLOCK_TAG_DATA,
            self.sequence,
            self.entry_count,
            raw_len,
            stored,
        );
        self.out.write_all(&header)?;
        self.out.write_all(stored)?;
        self.payload.clear();
        self.entry_count = 0;
        self.sequence += 1;
        Ok(())
    }

    /// Writes the last block and the trailer, flushes the stream and gives it back with
    /// what was written.
    pub fn finish(mut self) -> Result<(DumpSummary, W)> {
        if !self.payload.is_empty() {
            self.write_block()?;
        }
        let sizes = self.counter.sizes();
        let payload = encode_trailer(&sizes);
        let header = block_header(
            BLOCK_TAG_TRAILER,
            self.sequence,
            0,
            payload.len() as u32,
            &payload,
        );
        self.out.write_all(&header)?;
        self.out.write_all(&payload)?;
        let whole = self.out.crc;
        self.out.write_all(&whole.to_be_bytes())?;
        self.out.inner.flush().map_err(write_failed)?;
        let summary = DumpSummary {
            sizes,
            dump_bytes: self.out.bytes,
        };
        Ok((summary, self.out.inner))
    }
}

fn block_header(
    tag: u8,
    sequence: u32,
    entry_count: u32,
    raw_len: u32,
    stored: &[u8],
) -> [u8; BLOCK_HEADER_LEN] {
    let mut header = [0u8; BLOCK_HEADER_LEN];
    header[0] = tag;
    header[1..5].copy_from_slice(&sequence.to_be_bytes());
    header[5..9].copy_from_slice(&entry_count.to_be_bytes());
    header[9..13].copy_from_slice(&raw_len.to_be_bytes());
    header[13..17].copy_from_slice(&(stored.len() as u32).to_be_bytes());
    let crc = crc32c::crc32c_append(crc32c::crc32c(&header[..17]), stored);
    header[17..21].copy_from_slice(&crc.to_be_bytes());
    header
}

fn encode_trailer(sizes: &LiveSize) -> Vec<u8> {
    let mut payload = Vec::with_capacity(4 + sizes.keyspaces.len() * TRAILER_KEYSPACE_LEN);
    payload.extend_from_slice(&(sizes.keyspaces.len() as u32).to_be_bytes());
    for keyspace in &sizes.keyspaces {
        payload.push(keyspace.tag);
        payload.extend_from_slice(&keyspace.keys.to_be_bytes());
        payload.extend_from_slice(&keyspace.key_bytes.to_be_bytes());
        payload.extend_from_slice(&keyspace.value_bytes.to_be_bytes());
    }
    payload
}

fn decode_trailer(payload: &[u8]) -> Result<LiveSize> {
    let bad = |reason: &str| refused("the trailer", reason);
    let count = payload
        .get(..4)
        .map(|bytes| u32::from_be_bytes(field(bytes, 0)) as usize)
        .ok_or_else(|| bad("shorter than its keyspace count"))?;
    if count > TRAILER_KEYSPACE_COUNT_MAX || payload.len() != 4 + count * TRAILER_KEYSPACE_LEN {
        return Err(bad("its length does not match its keyspace count"));
    }
    let keyspaces = payload[4..]
        .chunks_exact(TRAILER_KEYSPACE_LEN)
        .map(|line| KeyspaceSize {
            tag: line[0],
            keys: u64::from_be_bytes(field(line, 1)),
            key_bytes: u64::from_be_bytes(field(line, 9)),
            value_bytes: u64::from_be_bytes(field(line, 17)),
        })
        .collect();
    Ok(LiveSize { keyspaces })
}

/// One block's entries, read and checked.
pub struct Block {
    payload: Vec<u8>,
    entry_count: u32,
}

impl Block {
    /// The entries, key and value, in key order (checked when the block was read).
    pub fn entries(&self) -> impl Iterator<Item = (&[u8], &[u8])> {
        let mut rest = self.payload.as_slice();
        (0..self.entry_count).map(move |_| {
            let (key, after_key) = take_field(rest).expect("checked when read");
            let (value, after_value) = take_field(after_key).expect("checked when read");
            rest = after_value;
            (key, value)
        })
    }

    /// How many entries the block holds.
    pub fn len(&self) -> usize {
        self.entry_count as usize
    }

    /// Whether the block holds no entry.
    pub fn is_empty(&self) -> bool {
        self.entry_count == 0
    }

    /// The bytes of its entries.
    pub fn payload_bytes(&self) -> usize {
        self.payload.len()
    }
}

fn take_field(bytes: &[u8]) -> Option<(&[u8], &[u8])> {
    let len = u32::from_be_bytes(bytes.get(..4)?.try_into().ok()?) as usize;
    let rest = &bytes[4..];
    (rest.len() >= len).then(|| rest.split_at(len))
}

/// Reads a dump a block at a time, checking each block's checksum, number, entries and key
/// order, and at the end the trailer's counts and the whole file's checksum.
pub struct DumpReader<R: Read> {
    input: Checksummed<R>,
    header: DumpHeader,
    sequence: u32,
    last_key: Option<Vec<u8>>,
    counter: KeyspaceCounter,
    finished: Option<LiveSize>,
}

impl<R: Read> DumpReader<R> {
    /// Reads and checks the header of the dump in `input`.
    pub fn open(input: R) -> Result<Self> {
        let mut input = Checksummed::new(input);
        let mut bytes = [0u8; HEADER_LEN];
        if !input.read_exact_or_end(&mut bytes, "the header")? {
            return Err(refused("the header", "the input is empty"));
        }
        let mut stored_crc = [0u8; 4];
        input.read_exact(&mut stored_crc, "the header")?;
        let header = DumpHeader::decode(&bytes)?;
        if crc32c::crc32c(&bytes) != u32::from_be_bytes(stored_crc) {
            return Err(refused(
                "the header",
                "its checksum does not match (corrupted)",
            ));
        }
        header.check_readable()?;
        Ok(DumpReader {
            input,
            header,
            sequence: 0,
            last_key: None,
            counter: KeyspaceCounter::new(),
            finished: None,
        })
    }

    /// The dump's header.
    pub fn header(&self) -> &DumpHeader {
        &self.header
    }

    /// The bytes read so far.
    pub fn bytes_read(&self) -> u64 {
        self.input.bytes
    }

    /// The next block of entries, or `None` once the trailer was read and checked: its
    /// counts match the entries read, its checksum over the whole file holds, and nothing
    /// follows it.
    pub fn next_block(&mut self) -> Result<Option<Block>> {
        if self.finished.is_some() {
            return Ok(None);
        }
        let place = format!("block {}", self.sequence);
        let mut header = [0u8; BLOCK_HEADER_LEN];
        if !self.input.read_exact_or_end(&mut header, &place)? {
            return Err(refused(
                &place,
                "truncated: the dump ends before its trailer",
            ));
        }
        let tag = header[0];
        let sequence = u32::from_be_bytes(field(&header, 1));
        let entry_count = u32::from_be_bytes(field(&header, 5));
        let raw_len = u32::from_be_bytes(field(&header, 9)) as usize;
        let stored_len = u32::from_be_bytes(field(&header, 13)) as usize;
        let stored_crc = u32::from_be_bytes(field(&header, 17));
        if tag != BLOCK_TAG_DATA && tag != BLOCK_TAG_TRAILER {
            return Err(refused(
                &place,
                format!("unknown block tag {tag:#04x} (corrupted)"),
            ));
        }
        if raw_len > BLOCK_PAYLOAD_BYTES_MAX || stored_len > BLOCK_PAYLOAD_BYTES_MAX {
            return Err(refused(&place, format!("a payload of {raw_len} bytes ({stored_len} stored) is over the limit of {BLOCK_PAYLOAD_BYTES_MAX} (corrupted)")));
        }
        let mut stored = vec![0u8; stored_len];
        self.input.read_exact(&mut stored, &place)?;
        let crc = crc32c::crc32c_append(crc32c::crc32c(&header[..17]), &stored);
        if crc != stored_crc {
            return Err(refused(&place, "its checksum does not match (corrupted)"));
        }
        if sequence != self.sequence {
            return Err(refused(&place, format!("block {sequence} found where block {} was expected (blocks reordered, missing or repeated)", self.sequence)));
        }
        if tag == BLOCK_TAG_TRAILER {
            return self.finish(&stored).map(|()| None);
        }
        let payload = match self.header.compression {
            Compression::None if raw_len == stored_len => stored,
            Compression::None => {
                return Err(refused(
                    &place,
                    "its lengths differ in an uncompressed dump",
                ))
            }
            Compression::Zstd => zstd::block::decompress(&stored, raw_len)
                .map_err(|error| refused(&place, format!("cannot decompress: {error}")))?,
        };
        if payload.len() != raw_len {
            return Err(refused(
                &place,
                format!(
                    "{} bytes decompressed where {raw_len} were declared",
                    payload.len()
                ),
            ));
        }
        self.check_entries(&payload, entry_count, &place)?;
        self.sequence += 1;
        Ok(Some(Block {
            payload,
            entry_count,
        }))
    }

    fn check_entries(&mut self, payload: &[u8], entry_count: u32, place: &str) -> Result<()> {
        let mut rest = payload;
        for index in 0..entry_count {
            let bad = |what: &str| refused(place, format!("entry {index}: {what}"));
            let (key, after_key) =
                take_field(rest).ok_or_else(|| bad("its key runs past the block"))?;
            let (value, after_value) =
                take_field(after_key).ok_or_else(|| bad("its value runs past the block"))?;
            if let Some(last) = &self.last_key {
                if key <= last.as_slice() {
                    return Err(bad(&format!(
                        "key {} does not follow {} (entries out of order)",
                        crate::error::escape_bytes(key),
                        crate::error::escape_bytes(last)
                    )));
                }
            }
            if key.is_empty() {
                return Err(bad("an empty key"));
            }
            self.counter.count(key, value.len());
            let last = self.last_key.get_or_insert_with(Vec::new);
            last.clear();
            last.extend_from_slice(key);
            rest = after_value;
        }
        if !rest.is_empty() {
            return Err(refused(
                place,
                format!("{} bytes follow its {entry_count} entries", rest.len()),
            ));
        }
        Ok(())
    }

    fn finish(&mut self, payload: &[u8]) -> Result<()> {
        let declared = decode_trailer(payload)?;
        let counted = self.counter.sizes();
        if declared != counted {
            return Err(refused(
                "the trailer",
                format!(
                    "it counts {} keys and {} bytes, the blocks hold {} keys and {} bytes",
                    declared.keys(),
                    declared.live_bytes(),
                    counted.keys(),
                    counted.live_bytes()
                ),
            ));
        }
        let whole = self.input.crc;
        let mut stored = [0u8; 4];
        self.input.read_exact(&mut stored, "the trailer")?;
        if u32::from_be_bytes(stored) != whole {
            return Err(refused(
                "the trailer",
                "the checksum over the whole dump does not match (corrupted)",
            ));
        }
        let mut extra = [0u8; 1];
        if self.input.read_exact_or_end(&mut extra, "the end")? {
            return Err(refused("the end", "bytes follow the trailer"));
        }
        self.finished = Some(counted);
        Ok(())
    }

    /// The counts of a dump read to its end, checked against its trailer.
    pub fn counts(&self) -> Option<&LiveSize> {
        self.finished.as_ref()
    }
}

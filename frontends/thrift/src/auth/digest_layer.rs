//! DIGEST-MD5's security layers (RFC 2831 §2.3, §2.4): integrity (QOP `auth-int`) and
//! confidentiality (QOP `auth-conf`) for each data frame after the login, as Java's
//! `com.sun.security.sasl.digest` client (the one Hadoop and Hive use) speaks them.
//!
//! Integrity: a frame is the message, the first 10 bytes of HMAC-MD5(Ki, seqnum ‖ message),
//! the message type 0x0001 and the 4-byte big-endian seqnum. Confidentiality: the message,
//! padding (block ciphers) and that MAC are encrypted with Kc, then type and seqnum follow in
//! the clear. Each direction has its own keys and its own seqnum from 0; the cipher state
//! (RC4's stream, 3DES's CBC chain) carries over from frame to frame.

use des::cipher::{BlockCipherDecrypt, BlockCipherEncrypt, KeyInit};
use des::TdesEde3;
use subtle::ConstantTimeEq;

/// The message type of every protected frame.
const MESSAGE_TYPE: [u8; 2] = [0, 1];
/// The bytes of the MAC kept in a frame.
const MAC_BYTES: usize = 10;
/// Message type and seqnum after the MAC or the ciphertext.
const TRAILER_BYTES: usize = 6;
/// The block size of DES and 3DES.
const DES_BLOCK: usize = 8;

const CLIENT_SIGN_MAGIC: &[u8] =
    b"Digest session key to client-to-server signing key magic constant";
const SERVER_SIGN_MAGIC: &[u8] =
    b"Digest session key to server-to-client signing key magic constant";
const CLIENT_SEAL_MAGIC: &[u8] = b"Digest H(A1) to client-to-server sealing key magic constant";
const SERVER_SEAL_MAGIC: &[u8] = b"Digest H(A1) to server-to-client sealing key magic constant";

/// The ciphers of `auth-conf` this server offers, strongest first. Java's client takes the
/// first of its order (`3des`, `rc4`, `des`, `rc4-56`, `rc4-40`) of the highest strength both
/// sides have, so `3des` unless told otherwise. The 56- and 40-bit ones are not offered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cipher {
    /// Two-key triple DES (EDE, K1 K2 K1) in CBC mode.
    TripleDes,
    /// RC4 with a 128-bit key.
    Rc4,
}

impl Cipher {
    /// Every cipher offered, in the order of the challenge's `cipher` directive.
    pub const ALL: [Cipher; 2] = [Cipher::TripleDes, Cipher::Rc4];

    /// The cipher's name in the `cipher` directive.
    pub fn name(self) -> &'static str {
        match self {
            Cipher::TripleDes => "3des",
            Cipher::Rc4 => "rc4",
        }
    }

    /// The cipher a `cipher` directive names, when offered.
    pub fn parse(name: &str) -> Option<Cipher> {
        Cipher::ALL
            .into_iter()
            .find(|cipher| cipher.name().eq_ignore_ascii_case(name))
    }
}

/// Which end of the connection a layer protects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The server (this server; sends with the server-to-client keys).
    Server,
    /// The client (tests play it).
    Client,
}

/// One connection's security layer after a login with QOP `auth-int` or `auth-conf`.
pub struct Layer {
    send_mac_key: [u8; 16],
    receive_mac_key: [u8; 16],
    send_seq: u32,
    receive_seq: u32,
    /// The encryption of each direction under `auth-conf`; none under `auth-int`.
    seal: Option<(Sealer, Sealer)>,
}

impl Layer {
    /// The layer of `side` from H(A1) (the binary MD5 of A1), encrypting with `cipher` when
    /// given (`auth-conf`), else integrity only.
    pub fn new(ha1: &[u8; 16], side: Side, cipher: Option<Cipher>) -> Layer {
        let client_mac = md5_of(&[ha1, CLIENT_SIGN_MAGIC]);
        let server_mac = md5_of(&[ha1, SERVER_SIGN_MAGIC]);
        let seal = cipher.map(|cipher| {
            // All of H(A1) for rc4, des and 3des (only rc4-40 and rc4-56 take fewer bytes).
            let client = Sealer::new(cipher, &md5_of(&[ha1, CLIENT_SEAL_MAGIC]));
            let server = Sealer::new(cipher, &md5_of(&[ha1, SERVER_SEAL_MAGIC]));
            match side {
                Side::Server => (server, client),
                Side::Client => (client, server),
            }
        });
        let (send_mac_key, receive_mac_key) = match side {
            Side::Server => (server_mac, client_mac),
            Side::Client => (client_mac, server_mac),
        };
        Layer {
            send_mac_key,
            receive_mac_key,
            send_seq: 0,
            receive_seq: 0,
            seal,
        }
    }

    /// Protects one outgoing message.
    pub fn wrap(&mut self, mut message: Vec<u8>) -> Result<Vec<u8>, String> {
        // Java's layer sends nothing for an empty message and reads an empty frame as one.
        if message.is_empty() {
            return Ok(message);
        }
        let seq = self.send_seq;
        self.send_seq = seq
            .checked_add(1)
            .ok_or("DIGEST-MD5: the sequence numbers are used up")?;
        let mac = mac(&self.send_mac_key, seq, &message);
        if let Some((sender, _)) = &mut self.seal {
            if sender.block_size() > 1 {
                // 1 to 8 bytes, each the count, so that message, pad and MAC fill whole blocks.
                let pad = DES_BLOCK - (message.len() + MAC_BYTES) % DES_BLOCK;
                message.resize(message.len() + pad, pad as u8);
            }
            message.extend_from_slice(&mac);
            sender.encrypt(&mut message);
        } else {
            message.extend_from_slice(&mac);
        }
        message.extend_from_slice(&MESSAGE_TYPE);
        message.extend_from_slice(&seq.to_be_bytes());
        Ok(message)
    }

    /// Checks (and decrypts) one incoming frame: a frame too short, a wrong MAC, message type
    /// or padding, or a seqnum other than the next expected is an error.
    pub fn unwrap(&mut self, mut frame: Vec<u8>) -> Result<Vec<u8>, String> {
        if frame.is_empty() {
            return Ok(frame);
        }
        if frame.len() < MAC_BYTES + TRAILER_BYTES {
            return Err(format!(
                "DIGEST-MD5: a protected frame of {} bytes is too short",
                frame.len()
            ));
        }
        let trailer = frame.split_off(frame.len() - TRAILER_BYTES);
        let seq = u32::from_be_bytes([trailer[2], trailer[3], trailer[4], trailer[5]]);
        if let Some((_, receiver)) = &mut self.seal {
            let block = receiver.block_size();
            if !frame.len().is_multiple_of(block) {
                return Err(format!(
                    "DIGEST-MD5: {} encrypted bytes are not whole cipher blocks",
                    frame.len()
                ));
            }
            receiver.decrypt(&mut frame);
        }
        let mac_received = frame.split_off(frame.len() - MAC_BYTES);
        if let Some((_, receiver)) = &self.seal {
            if receiver.block_size() > 1 {
                let pad = usize::from(frame.last().copied().unwrap_or(0));
                let pad_ok = (1..=DES_BLOCK).contains(&pad)
                    && pad <= frame.len()
                    && frame[frame.len() - pad..]
                        .iter()
                        .all(|&b| usize::from(b) == pad);
                if !pad_ok {
                    return Err("DIGEST-MD5: a frame's padding is malformed".to_string());
                }
                frame.truncate(frame.len() - pad);
            }
        }
        let expected = mac(&self.receive_mac_key, seq, &frame);
        if !bool::from(expected.ct_eq(&mac_received[..])) {
            return Err("DIGEST-MD5: a frame's MAC does not match (tampered or misordered)".into());
        }
        if seq != self.receive_seq {
            return Err(format!(
                "DIGEST-MD5: a frame has sequence number {seq}, expected {}",
                self.receive_seq
            ));
        }
        if trailer[..2] != MESSAGE_TYPE {
            return Err("DIGEST-MD5: a frame's message type is not 1".to_string());
        }
        self.receive_seq = seq
            .checked_add(1)
            .ok_or("DIGEST-MD5: the sequence numbers are used up")?;
        Ok(frame)
    }
}

/// The MD5 of the parts, concatenated.
fn md5_of(parts: &[&[u8]]) -> [u8; 16] {
    let mut context = md5::Context::new();
    for part in parts {
        context.consume(part);
    }
    context.compute().0
}

/// HMAC-MD5 (RFC 2104) of a 16-byte key, which is shorter than MD5's 64-byte block.
pub fn hmac_md5(key: &[u8; 16], parts: &[&[u8]]) -> [u8; 16] {
    let mut inner_key = [0x36_u8; 64];
    let mut outer_key = [0x5c_u8; 64];
    for (index, byte) in key.iter().enumerate() {
        inner_key[index] ^= byte;
        outer_key[index] ^= byte;
    }
    let mut inner = md5::Context::new();
    inner.consume(inner_key);
    for part in parts {
        inner.consume(part);
    }
    md5_of(&[&outer_key, &inner.compute().0])
}

/// The 10 bytes of MAC a frame carries: HMAC-MD5(Ki, seqnum ‖ message).
fn mac(key: &[u8; 16], seq: u32, message: &[u8]) -> [u8; MAC_BYTES] {
    let full = hmac_md5(key, &[&seq.to_be_bytes(), message]);
    let mut mac = [0_u8; MAC_BYTES];
    mac.copy_from_slice(&full[..MAC_BYTES]);
    mac
}

/// One direction's encryption, its state kept from frame to frame (boxed: both are large).
enum Sealer {
    Rc4(Box<Rc4>),
    TripleDes(Box<TripleDesCbc>),
}

impl Sealer {
    fn new(cipher: Cipher, key: &[u8; 16]) -> Sealer {
        match cipher {
            Cipher::Rc4 => Sealer::Rc4(Box::new(Rc4::new(key))),
            Cipher::TripleDes => Sealer::TripleDes(Box::new(TripleDesCbc::new(key))),
        }
    }

    fn block_size(&self) -> usize {
        match self {
            Sealer::Rc4(_) => 1,
            Sealer::TripleDes(_) => DES_BLOCK,
        }
    }

    /// Encrypts in place; a block cipher's input is whole blocks (the caller pads).
    fn encrypt(&mut self, data: &mut [u8]) {
        match self {
            Sealer::Rc4(rc4) => rc4.apply(data),
            Sealer::TripleDes(des) => des.encrypt(data),
        }
    }

    /// Decrypts in place; a block cipher's input is whole blocks (the caller checks).
    fn decrypt(&mut self, data: &mut [u8]) {
        match self {
            Sealer::Rc4(rc4) => rc4.apply(data),
            Sealer::TripleDes(des) => des.decrypt(data),
        }
    }
}

/// RC4 (a stream cipher: encrypting and decrypting are the same XOR).
pub struct Rc4 {
    state: [u8; 256],
    i: u8,
    j: u8,
}

impl Rc4 {
    /// The cipher keyed by `key` (1 to 256 bytes).
    pub fn new(key: &[u8]) -> Rc4 {
        let mut state = [0_u8; 256];
        for (index, byte) in state.iter_mut().enumerate() {
            *byte = index as u8;
        }
        let mut j = 0_u8;
        for index in 0..256 {
            j = j
                .wrapping_add(state[index])
                .wrapping_add(key.get(index % key.len().max(1)).copied().unwrap_or(0));
            state.swap(index, usize::from(j));
        }
        Rc4 { state, i: 0, j: 0 }
    }

    /// XORs the next bytes of the key stream into `data`.
    pub fn apply(&mut self, data: &mut [u8]) {
        for byte in data {
            self.i = self.i.wrapping_add(1);
            self.j = self.j.wrapping_add(self.state[usize::from(self.i)]);
            self.state.swap(usize::from(self.i), usize::from(self.j));
            let index =
                self.state[usize::from(self.i)].wrapping_add(self.state[usize::from(self.j)]);
            *byte ^= self.state[usize::from(index)];
        }
    }
}

/// Triple DES in CBC mode as RFC 2831 keys it: K1 from Kc's first 7 bytes, K2 from the next
/// 7, encrypt-decrypt-encrypt with K1 K2 K1; the IV is Kc's last 8 bytes.
pub struct TripleDesCbc {
    cipher: TdesEde3,
    chain: [u8; DES_BLOCK],
}

impl TripleDesCbc {
    /// The cipher of the 16-byte sealing key `kc`.
    pub fn new(kc: &[u8; 16]) -> TripleDesCbc {
        let k1 = des_key(&kc[..7]);
        let k2 = des_key(&kc[7..14]);
        let mut key = [0_u8; 24];
        key[..8].copy_from_slice(&k1);
        key[8..16].copy_from_slice(&k2);
        key[16..].copy_from_slice(&k1);
        let mut chain = [0_u8; DES_BLOCK];
        chain.copy_from_slice(&kc[8..]);
        TripleDesCbc {
            cipher: TdesEde3::new(&key.into()),
            chain,
        }
    }

    fn encrypt(&mut self, data: &mut [u8]) {
        for chunk in data.chunks_exact_mut(DES_BLOCK) {
            let mut block = [0_u8; DES_BLOCK];
            for (index, byte) in block.iter_mut().enumerate() {
                *byte = chunk[index] ^ self.chain[index];
            }
            let mut block = block.into();
            self.cipher.encrypt_block(&mut block);
            chunk.copy_from_slice(&block);
            self.chain.copy_from_slice(&block);
        }
    }

    fn decrypt(&mut self, data: &mut [u8]) {
        for chunk in data.chunks_exact_mut(DES_BLOCK) {
            let mut ciphertext = [0_u8; DES_BLOCK];
            ciphertext.copy_from_slice(chunk);
            let mut block = ciphertext.into();
            self.cipher.decrypt_block(&mut block);
            for (index, byte) in chunk.iter_mut().enumerate() {
                *byte = block[index] ^ self.chain[index];
            }
            self.chain = ciphertext;
        }
    }
}

/// A DES key from 7 bytes: each 7 bits, in order, become a byte's high bits, the low bit
/// set for odd parity.
fn des_key(seven: &[u8]) -> [u8; 8] {
    let mut bits = seven
        .iter()
        .fold(0_u64, |bits, &byte| (bits << 8) | u64::from(byte));
    let mut key = [0_u8; 8];
    for byte in key.iter_mut().rev() {
        let high = ((bits & 0x7f) as u8) << 1;
        *byte = high | u8::from(high.count_ones().is_multiple_of(2));
        bits >>= 7;
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|byte| format!("{byte:02x}")).collect()
    }

    #[test]
    fn digest_hmac_md5_matches_rfc_2202() {
        assert_eq!(
            hex(&hmac_md5(&[0x0b; 16], &[b"Hi ", b"There"])),
            "9294727a3638bb1c13f48ef8158bfc9d"
        );
    }

    #[test]
    fn digest_rc4_matches_the_classic_vectors() {
        let mut data = *b"Plaintext";
        Rc4::new(b"Key").apply(&mut data);
        assert_eq!(hex(&data), "bbf316e8d940af0ad3");
        let mut data = *b"Attack at dawn";
        Rc4::new(b"Secret").apply(&mut data);
        assert_eq!(hex(&data), "45a01f645fc35b383552544b9bf5");
    }

    #[test]
    fn digest_des_keys_spread_seven_bytes_with_odd_parity() {
        assert_eq!(des_key(&[0; 7]), [1; 8]);
        assert_eq!(des_key(&[0xff; 7]), [0xfe; 8]);
        // 0x80 then zeros: the first bit lands at the top of the first byte.
        assert_eq!(
            des_key(&[0x80, 0, 0, 0, 0, 0, 0]),
            [0x80, 1, 1, 1, 1, 1, 1, 1]
        );
        for byte in des_key(&[0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde]) {
            assert_eq!(byte.count_ones() % 2, 1);
        }
    }

    #[test]
    fn digest_triple_des_cbc_matches_a_known_vector_and_chains() {
        // K1 = K2 makes EDE plain DES: FIPS 81's CBC example, key 0123456789abcdef,
        // IV 1234567890abcdef, "Now is the time for all " -> e5c7cdde872bf27c 43e934008c389c0f
        // 683788499a7c05f6.
        let mut cipher = TripleDesCbc {
            cipher: TdesEde3::new(
                &[
                    0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x01, 0x23, 0x45, 0x67, 0x89,
                    0xab, 0xcd, 0xef, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
                ]
                .into(),
            ),
            chain: [0x12, 0x34, 0x56, 0x78, 0x90, 0xab, 0xcd, 0xef],
        };
        let mut data = *b"Now is the time for all ";
        // In two calls: the chain carries over from one frame to the next.
        cipher.encrypt(&mut data[..8]);
        cipher.encrypt(&mut data[8..]);
        assert_eq!(
            hex(&data),
            "e5c7cdde872bf27c43e934008c389c0f683788499a7c05f6"
        );
    }

    /// A client written out from RFC 2831's layout, independent of `Layer`: integrity.
    fn client_int_frame(kic: &[u8; 16], seq: u32, message: &[u8]) -> Vec<u8> {
        let full = hmac_md5(kic, &[&seq.to_be_bytes(), message]);
        let mut frame = message.to_vec();
        frame.extend_from_slice(&full[..10]);
        frame.extend_from_slice(&[0, 1]);
        frame.extend_from_slice(&seq.to_be_bytes());
        frame
    }

    const HA1: [u8; 16] = *b"0123456789abcdef";

    #[test]
    fn digest_auth_int_reads_an_independent_client_and_refuses_tampering_and_replay() {
        let kic = md5_of(&[&HA1, CLIENT_SIGN_MAGIC]);
        let mut server = Layer::new(&HA1, Side::Server, None);
        let first = client_int_frame(&kic, 0, b"hello");
        assert_eq!(server.unwrap(first.clone()).unwrap(), b"hello");
        assert!(server
            .unwrap(first.clone())
            .unwrap_err()
            .contains("sequence"));
        let second = client_int_frame(&kic, 1, b"world");
        for index in 0..second.len() - TRAILER_BYTES {
            let mut tampered = second.clone();
            tampered[index] ^= 0x01;
            assert!(server.unwrap(tampered).is_err(), "byte {index}");
        }
        let mut bad_type = second.clone();
        bad_type[second.len() - 5] = 2;
        assert!(server.unwrap(bad_type).unwrap_err().contains("type"));
        assert_eq!(server.unwrap(second).unwrap(), b"world");
        assert!(server
            .unwrap(vec![1; 15])
            .unwrap_err()
            .contains("too short"));
        // A server frame carries the server's key, so the server refuses it as the client's.
        let kis = md5_of(&[&HA1, SERVER_SIGN_MAGIC]);
        assert!(server.unwrap(client_int_frame(&kis, 2, b"x")).is_err());
        // The server's own frames: the same layout under Kis, its seqnum from 0.
        assert_eq!(
            server.wrap(b"reply".to_vec()).unwrap(),
            client_int_frame(&kis, 0, b"reply")
        );
    }

    #[test]
    fn digest_auth_conf_round_trips_both_ways_with_each_cipher() {
        for cipher in Cipher::ALL {
            let mut server = Layer::new(&HA1, Side::Server, Some(cipher));
            let mut client = Layer::new(&HA1, Side::Client, Some(cipher));
            for length in [1, 5, 6, 7, 13, 14, 100, 4096] {
                let message: Vec<u8> = (0..length).map(|i| i as u8).collect();
                let frame = client.wrap(message.clone()).unwrap();
                assert_ne!(&frame[..length.min(8)], &message[..length.min(8)]);
                if cipher == Cipher::TripleDes {
                    assert_eq!((frame.len() - TRAILER_BYTES) % DES_BLOCK, 0);
                }
                assert_eq!(server.unwrap(frame).unwrap(), message, "{cipher:?}");
                let reply = server.wrap(message.clone()).unwrap();
                assert_eq!(client.unwrap(reply).unwrap(), message, "{cipher:?}");
            }
        }
    }

    #[test]
    fn digest_auth_conf_refuses_tampered_replayed_and_malformed_frames() {
        for cipher in Cipher::ALL {
            let fresh = || {
                (
                    Layer::new(&HA1, Side::Server, Some(cipher)),
                    Layer::new(&HA1, Side::Client, Some(cipher)),
                )
            };
            let (mut server, mut client) = fresh();
            let frame = client.wrap(b"select 1".to_vec()).unwrap();
            for index in 0..frame.len() {
                let (mut server, _) = fresh();
                let mut tampered = frame.clone();
                tampered[index] ^= 0x80;
                assert!(server.unwrap(tampered).is_err(), "{cipher:?} byte {index}");
            }
            assert_eq!(server.unwrap(frame.clone()).unwrap(), b"select 1");
            assert!(server.unwrap(frame).is_err(), "{cipher:?} replay");
            let (mut server, _) = fresh();
            assert!(server.unwrap(vec![7; 16]).is_err());
            assert!(server.unwrap(vec![7; 23]).is_err());
            assert!(server.unwrap(vec![7; 5]).is_err());
        }
    }
}

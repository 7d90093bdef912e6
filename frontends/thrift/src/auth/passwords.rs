//! Hive's `CUSTOM` authentication, here a file of hashed passwords: one `user:hash` line per
//! user, the hash an argon2id PHC string (`$argon2id$v=19$m=...`, what `hivestore passwd`
//! prints) or a bcrypt one (`$2b$`, `$2y$`, `$2a$`, what `htpasswd -B` writes). `#` starts a
//! comment line; blank lines are skipped. The file is read at start and by
//! [`PasswordFile::reload`]; a malformed line is an error naming the file and the line.
//!
//! The hash crates compare in constant time; a user not in the file is checked against a
//! hash all the same, so that the time taken does not tell who is in it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;

use super::plain::PasswordCheck;

/// The largest password file read, in bytes.
pub const PASSWORD_FILE_BYTES_MAX: u64 = 16 * 1024 * 1024;

/// A stored hash, parsed at load so that checking cannot meet a malformed one.
#[derive(Clone, Debug)]
enum Hash {
    Argon2id(String),
    Bcrypt(String),
}

impl Hash {
    fn parse(text: &str) -> Result<Hash, String> {
        if text.starts_with("$argon2id$") {
            let parsed =
                PasswordHash::new(text).map_err(|error| format!("argon2id hash: {error}"))?;
            if parsed.hash.is_none() || parsed.salt.is_none() {
                return Err("argon2id hash without its salt or digest".to_string());
            }
            Ok(Hash::Argon2id(text.to_string()))
        } else if ["$2b$", "$2y$", "$2a$"]
            .iter()
            .any(|prefix| text.starts_with(prefix))
        {
            bcrypt_shape(text)?;
            Ok(Hash::Bcrypt(text.to_string()))
        } else {
            Err(
                "the hash is neither argon2id ($argon2id$...) nor bcrypt ($2b$, $2y$, $2a$)"
                    .to_string(),
            )
        }
    }

    fn verify(&self, password: &str) -> bool {
        match self {
            Hash::Argon2id(text) => PasswordHash::new(text).is_ok_and(|parsed| {
                Argon2::default()
                    .verify_password(password.as_bytes(), &parsed)
                    .is_ok()
            }),
            Hash::Bcrypt(text) => bcrypt::verify(password, text).unwrap_or(false),
        }
    }
}

/// `$2b$NN$` and 53 characters of bcrypt's base64 (a 22-character salt, a 31-character digest),
/// with a cost bcrypt takes (4 to 31).
fn bcrypt_shape(text: &str) -> Result<(), String> {
    let fields: Vec<&str> = text.splitn(4, '$').collect();
    let [_, _, cost, rest] = fields.as_slice() else {
        return Err("bcrypt hash: not $2b$COST$SALTDIGEST".to_string());
    };
    let cost: u32 = cost
        .parse()
        .map_err(|_| format!("bcrypt hash: the cost {cost:?} is not a number"))?;
    if !(4..=31).contains(&cost) {
        return Err(format!(
            "bcrypt hash: the cost {cost} is not between 4 and 31"
        ));
    }
    let alphabet = |byte: u8| byte.is_ascii_alphanumeric() || byte == b'.' || byte == b'/';
    if rest.len() != 53 || !rest.bytes().all(alphabet) {
        return Err(
            "bcrypt hash: the salt and digest are not 53 characters of bcrypt's base64".to_string(),
        );
    }
    Ok(())
}

/// The users and hashes of a password file, read again on [`PasswordFile::reload`].
#[derive(Debug)]
pub struct PasswordFile {
    path: PathBuf,
    users: RwLock<Arc<HashMap<String, Hash>>>,
    /// Checked for users not in the file.
    decoy: Hash,
}

impl PasswordFile {
    /// Reads the file; the error names the file, and the line when one is malformed.
    pub fn load(path: &Path) -> Result<PasswordFile, String> {
        let users = read(path)?;
        let decoy = Hash::Argon2id(hash_password("not the password of anyone")?);
        Ok(PasswordFile {
            path: path.to_path_buf(),
            users: RwLock::new(Arc::new(users)),
            decoy,
        })
    }

    /// The file read.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// How many users the file holds now.
    pub fn len(&self) -> usize {
        self.users().len()
    }

    /// True when the file holds no user.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn users(&self) -> Arc<HashMap<String, Hash>> {
        Arc::clone(&self.users.read().unwrap_or_else(PoisonError::into_inner))
    }
}

impl PasswordCheck for PasswordFile {
    fn check(&self, user: &str, password: &str) -> Result<(), String> {
        let users = self.users();
        match users.get(user) {
            Some(hash) if hash.verify(password) => Ok(()),
            Some(_) => Err("wrong password".to_string()),
            None => {
                self.decoy.verify(password);
                Err(format!("no such user in {}", self.path.display()))
            }
        }
    }

    fn reload(&self) -> Result<(), String> {
        let users = read(&self.path)?;
        *self.users.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(users);
        Ok(())
    }
}

fn read(path: &Path) -> Result<HashMap<String, Hash>, String> {
    let shown = path.display();
    let size = std::fs::metadata(path)
        .map_err(|error| format!("password file {shown}: {error}"))?
        .len();
    if size > PASSWORD_FILE_BYTES_MAX {
        return Err(format!(
            "password file {shown}: {size} bytes, over the limit of {PASSWORD_FILE_BYTES_MAX}"
        ));
    }
    let text =
        std::fs::read_to_string(path).map_err(|error| format!("password file {shown}: {error}"))?;
    parse(&text).map_err(|(line, reason)| format!("password file {shown}, line {line}: {reason}"))
}

/// The users of a password file's text; an error is the line number and why.
fn parse(text: &str) -> Result<HashMap<String, Hash>, (usize, String)> {
    let mut users = HashMap::new();
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((user, hash)) = line.split_once(':') else {
            return Err((number, "not user:hash".to_string()));
        };
        valid_user(user).map_err(|reason| (number, reason))?;
        let hash =
            Hash::parse(hash).map_err(|reason| (number, format!("user {user:?}: {reason}")))?;
        if users.insert(user.to_string(), hash).is_some() {
            return Err((number, format!("user {user:?} is listed twice")));
        }
    }
    Ok(users)
}

/// A user name a password file can hold: not empty, no `:`, no white space or control
/// characters.
pub fn valid_user(user: &str) -> Result<(), String> {
    if user.is_empty() {
        return Err("an empty user name".to_string());
    }
    if user.contains(':') || user.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(format!(
            "user name {user:?} has a ':', white space or a control character"
        ));
    }
    Ok(())
}

/// An argon2id PHC string of `password` with a fresh random salt (argon2's default cost).
pub fn hash_password(password: &str) -> Result<String, String> {
    let mut salt = [0u8; 16];
    getrandom::getrandom(&mut salt).map_err(|error| format!("no random salt: {error}"))?;
    let salt = SaltString::encode_b64(&salt).map_err(|error| format!("salt: {error}"))?;
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|hash| hash.to_string())
        .map_err(|error| format!("argon2id: {error}"))
}

/// The line to add to a password file for `user` with `password`.
pub fn password_line(user: &str, password: &str) -> Result<String, String> {
    valid_user(user)?;
    if password.is_empty() {
        return Err("an empty password: PLAIN clients cannot send one".to_string());
    }
    Ok(format!("{user}:{}", hash_password(password)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bcrypt hash of "bcrypt-pw" at the least cost, as `htpasswd -B -C 4` writes it.
    fn bcrypt_line(user: &str, prefix: &str) -> String {
        let hash = bcrypt::hash("bcrypt-pw", 4).unwrap();
        format!("{user}:{prefix}{}", &hash[4..])
    }

    fn temp_file(name: &str, text: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("hivestore-passwords-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn argon2id_and_bcrypt_hashes_verify_their_password_only() {
        let text = format!(
            "# users\n\n{}\n  {}  \n{}\n",
            password_line("alice", "argon-pw").unwrap(),
            bcrypt_line("bob", "$2y$"),
            bcrypt_line("carol", "$2a$"),
        );
        let path = temp_file("both.txt", &text);
        let file = PasswordFile::load(&path).unwrap();
        assert_eq!(file.len(), 3);
        assert_eq!(file.check("alice", "argon-pw"), Ok(()));
        assert_eq!(
            file.check("alice", "argon-pw "),
            Err("wrong password".to_string())
        );
        assert_eq!(file.check("bob", "bcrypt-pw"), Ok(()));
        assert_eq!(file.check("carol", "bcrypt-pw"), Ok(()));
        assert_eq!(
            file.check("bob", "argon-pw"),
            Err("wrong password".to_string())
        );
        let unknown = file.check("mallory", "argon-pw").unwrap_err();
        assert!(unknown.starts_with("no such user in "), "{unknown}");
    }

    #[test]
    fn password_line_hashes_with_argon2id_and_a_fresh_salt() {
        let one = password_line("alice", "pw").unwrap();
        let two = password_line("alice", "pw").unwrap();
        assert!(one.starts_with("alice:$argon2id$v=19$"), "{one}");
        assert_ne!(one, two, "each hash has its own salt");
        assert!(password_line("al ice", "pw")
            .unwrap_err()
            .contains("white space"));
        assert!(password_line("a:b", "pw").unwrap_err().contains("':'"));
        assert!(password_line("alice", "")
            .unwrap_err()
            .contains("empty password"));
    }

    #[test]
    fn a_malformed_line_names_the_file_and_the_line() {
        let cases = [
            ("alice\n", "line 1: not user:hash"),
            ("# c\n:$2b$04$x\n", "line 2: an empty user name"),
            (
                "alice:plaintext\n",
                "line 1: user \"alice\": the hash is neither",
            ),
            (
                "alice:$argon2id$v=19$garbage\n",
                "line 1: user \"alice\": argon2id hash",
            ),
            ("alice:$2b$99$abc\n", "the cost 99 is not between 4 and 31"),
            ("alice:$2b$04$short\n", "not 53 characters"),
        ];
        for (text, expected) in cases {
            let path = temp_file("bad.txt", text);
            let error = PasswordFile::load(&path).unwrap_err();
            assert!(error.contains(&path.display().to_string()), "{error}");
            assert!(error.contains(expected), "{text:?}: {error}");
        }
        let twice = format!(
            "{}\n{}\n",
            bcrypt_line("bob", "$2b$"),
            bcrypt_line("bob", "$2b$")
        );
        let error = PasswordFile::load(&temp_file("twice.txt", &twice)).unwrap_err();
        assert!(
            error.contains("line 2: user \"bob\" is listed twice"),
            "{error}"
        );
        let missing = PasswordFile::load(Path::new("/nonexistent/users.txt")).unwrap_err();
        assert!(
            missing.starts_with("password file /nonexistent/users.txt: "),
            "{missing}"
        );
    }

    #[test]
    fn reload_takes_the_new_file_and_keeps_the_old_on_an_error() {
        let path = temp_file("reload.txt", &bcrypt_line("bob", "$2b$"));
        let file = PasswordFile::load(&path).unwrap();
        assert_eq!(file.check("bob", "bcrypt-pw"), Ok(()));
        std::fs::write(&path, password_line("alice", "new-pw").unwrap()).unwrap();
        file.reload().unwrap();
        assert_eq!(file.check("alice", "new-pw"), Ok(()));
        assert!(file.check("bob", "bcrypt-pw").is_err(), "bob left the file");
        std::fs::write(&path, "broken\n").unwrap();
        assert!(file.reload().unwrap_err().contains("line 1"));
        assert_eq!(
            file.check("alice", "new-pw"),
            Ok(()),
            "the file in use is kept"
        );
    }
}

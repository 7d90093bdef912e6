//! Hadoop's `hadoop.security.auth_to_local` rules: how a Kerberos principal becomes the short
//! name that counts as the user.
//!
//! Rules are tried in order; the first that yields a name wins:
//! - `DEFAULT`: the principal's first component, when its realm is the default realm.
//! - `RULE:[n:format](regex)s/pattern/replacement/g/L`: for principals of `n` components,
//!   `format` with `$0` the realm and `$1`, `$2` the components; the result must match `regex`
//!   whole (when given), then `s/pattern/replacement/` replaces its first match (every match with
//!   `g`), and `L` lowers the case. A result that still holds `/` or `@` is refused.
//!
//! A principal that no rule maps is refused, as Hadoop's `hadoop` rule mechanism does.

use regex::Regex;

/// The rules when none are configured.
pub const AUTH_TO_LOCAL_DEFAULT: &str = "DEFAULT";
/// Longest rule text accepted, in bytes.
pub const AUTH_TO_LOCAL_BYTES_MAX: usize = 64 * 1024;
/// Longest principal mapped, in bytes.
const PRINCIPAL_BYTES_MAX: usize = 1024;
/// Compiled size limit of one rule's regular expression.
const REGEX_SIZE_MAX: usize = 1 << 20;

/// A parsed list of rules and the default realm they apply `DEFAULT` with.
#[derive(Debug, Clone)]
pub struct PrincipalRules {
    rules: Vec<Rule>,
    default_realm: String,
}

#[derive(Debug, Clone)]
enum Rule {
    Default,
    Mapping {
        components: usize,
        format: Vec<FormatPart>,
        matching: Option<Regex>,
        substitution: Option<Substitution>,
        lower_case: bool,
        text: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum FormatPart {
    Literal(String),
    /// `$n`: 0 the realm, 1.. the components.
    Parameter(usize),
}

#[derive(Debug, Clone)]
struct Substitution {
    pattern: Regex,
    /// In the regex crate's syntax (`${1}`), translated from Java's (`$1`, `\$`).
    replacement: String,
    global: bool,
}

/// A principal's parts: `first/second@realm`.
struct Principal<'a> {
    components: Vec<&'a str>,
    realm: Option<&'a str>,
}

impl PrincipalRules {
    /// Parses `text` (rules separated by white space or new lines).
    pub fn parse(text: &str, default_realm: &str) -> Result<PrincipalRules, String> {
        if text.len() > AUTH_TO_LOCAL_BYTES_MAX {
            return Err(format!(
                "auth_to_local rules are {} bytes, more than {AUTH_TO_LOCAL_BYTES_MAX}",
                text.len()
            ));
        }
        let mut rules = Vec::new();
        let mut rest = text.trim_start();
        while !rest.is_empty() {
            let (rule, after) = parse_rule(rest)?;
            rules.push(rule);
            if !after.is_empty() && !after.starts_with(char::is_whitespace) {
                return Err(format!(
                    "auth_to_local: unexpected text after a rule: {after:?}"
                ));
            }
            rest = after.trim_start();
        }
        if rules.is_empty() {
            return Err(
                "auth_to_local: no rules (use DEFAULT for the default mapping)".to_string(),
            );
        }
        Ok(PrincipalRules {
            rules,
            default_realm: default_realm.to_string(),
        })
    }

    /// The short name of `principal`, or why it has none.
    pub fn short_name(&self, principal: &str) -> Result<String, String> {
        if principal.len() > PRINCIPAL_BYTES_MAX {
            return Err(format!("principal longer than {PRINCIPAL_BYTES_MAX} bytes"));
        }
        let parsed = parse_principal(principal)?;
        let Some(realm) = parsed.realm else {
            // Hadoop maps a name without a realm to itself.
            return Ok(principal.to_string());
        };
        for rule in &self.rules {
            if let Some(name) = self.apply(rule, realm, &parsed.components)? {
                return Ok(name);
            }
        }
        Err(format!(
            "no auth_to_local rule maps the principal {principal}"
        ))
    }

    fn apply(
        &self,
        rule: &Rule,
        realm: &str,
        components: &[&str],
    ) -> Result<Option<String>, String> {
        let (name, text, lower_case) = match rule {
            Rule::Default => {
                if realm != self.default_realm {
                    return Ok(None);
                }
                (components[0].to_string(), "DEFAULT", false)
            }
            Rule::Mapping {
                components: count,
                format,
                matching,
                substitution,
                lower_case,
                text,
            } => {
                if *count != components.len() {
                    return Ok(None);
                }
                let base: String = format
                    .iter()
                    .map(|part| match part {
                        FormatPart::Literal(literal) => literal.as_str(),
                        FormatPart::Parameter(0) => realm,
                        FormatPart::Parameter(index) => components[index - 1],
                    })
                    .collect();
                if matching
                    .as_ref()
                    .is_some_and(|regex| !regex.is_match(&base))
                {
                    return Ok(None);
                }
                let name = match substitution {
                    None => base,
                    Some(Substitution {
                        pattern,
                        replacement,
                        global: true,
                    }) => pattern
                        .replace_all(&base, replacement.as_str())
                        .into_owned(),
                    Some(Substitution {
                        pattern,
                        replacement,
                        global: false,
                    }) => pattern.replace(&base, replacement.as_str()).into_owned(),
                };
                (name, text.as_str(), *lower_case)
            }
        };
        if name.contains(['/', '@']) {
            return Err(format!(
                "auth_to_local rule {text} gave the non-simple name {name}"
            ));
        }
        Ok(Some(if lower_case {
            name.to_ascii_lowercase()
        } else {
            name
        }))
    }
}

fn parse_principal(principal: &str) -> Result<Principal<'_>, String> {
    let (name, realm) = match principal.split_once('@') {
        Some((name, realm)) => (name, Some(realm)),
        None => (principal, None),
    };
    let components: Vec<&str> = name.split('/').collect();
    let malformed = components.len() > 2
        || components.iter().any(|part| part.is_empty())
        || realm.is_some_and(|realm| realm.is_empty() || realm.contains(['/', '@']));
    if malformed {
        return Err(format!("malformed Kerberos principal {principal:?}"));
    }
    Ok(Principal { components, realm })
}

/// Parses one rule at the start of `text`; returns it and the text after it.
fn parse_rule(text: &str) -> Result<(Rule, &str), String> {
    if let Some(rest) = text.strip_prefix("DEFAULT") {
        return Ok((Rule::Default, rest));
    }
    let invalid = |why: &str| {
        let shown: String = text.chars().take(80).collect();
        format!("auth_to_local: invalid rule at {shown:?}: {why}")
    };
    let rest = text
        .strip_prefix("RULE:[")
        .ok_or_else(|| invalid("expected DEFAULT or RULE:[n:format]"))?;
    let (header, mut rest) = rest
        .split_once(']')
        .ok_or_else(|| invalid("no ] after the format"))?;
    let (count, format) = header
        .split_once(':')
        .ok_or_else(|| invalid("expected [n:format]"))?;
    let components: usize = count
        .parse()
        .ok()
        .filter(|count| (1..=2).contains(count))
        .ok_or_else(|| invalid("the number of components must be 1 or 2"))?;
    let format = parse_format(format, components).map_err(|why| invalid(&why))?;
    let mut matching = None;
    if let Some(after) = rest.strip_prefix('(') {
        let (regex, after) = after
            .split_once(')')
            .ok_or_else(|| invalid("no ) after the regex"))?;
        matching = Some(compile(&format!("^(?:{regex})$")).map_err(|why| invalid(&why))?);
        rest = after;
    }
    let mut substitution = None;
    if let Some(after) = rest.strip_prefix("s/") {
        let (pattern, after) = after
            .split_once('/')
            .ok_or_else(|| invalid("no / after the pattern"))?;
        let (replacement, after) = after
            .split_once('/')
            .ok_or_else(|| invalid("no / after the replacement"))?;
        let (global, after) = match after.strip_prefix('g') {
            Some(after) => (true, after),
            None => (false, after),
        };
        substitution = Some(Substitution {
            pattern: compile(pattern).map_err(|why| invalid(&why))?,
            replacement: java_replacement(replacement),
            global,
        });
        rest = after;
    }
    let rest = rest.strip_prefix('/').unwrap_or(rest);
    let (lower_case, rest) = match rest.strip_prefix('L') {
        Some(after) => (true, after),
        None => (false, rest),
    };
    let consumed = text.len() - rest.len();
    let rule = Rule::Mapping {
        components,
        format,
        matching,
        substitution,
        lower_case,
        text: text[..consumed].to_string(),
    };
    Ok((rule, rest))
}

fn parse_format(format: &str, components: usize) -> Result<Vec<FormatPart>, String> {
    let mut parts = Vec::new();
    let mut literal = String::new();
    let mut chars = format.chars().peekable();
    while let Some(char) = chars.next() {
        if char != '$' {
            literal.push(char);
            continue;
        }
        let mut digits = String::new();
        while let Some(digit) = chars.next_if(char::is_ascii_digit) {
            digits.push(digit);
        }
        let index: usize = digits
            .parse()
            .map_err(|_| format!("format {format:?}: $ must be followed by a number"))?;
        if index > components {
            return Err(format!(
                "format {format:?}: ${index} is past the principal's {components} components"
            ));
        }
        if !literal.is_empty() {
            parts.push(FormatPart::Literal(std::mem::take(&mut literal)));
        }
        parts.push(FormatPart::Parameter(index));
    }
    if !literal.is_empty() {
        parts.push(FormatPart::Literal(literal));
    }
    Ok(parts)
}

fn compile(pattern: &str) -> Result<Regex, String> {
    regex::RegexBuilder::new(pattern)
        .size_limit(REGEX_SIZE_MAX)
        .build()
        .map_err(|error| format!("bad regular expression {pattern:?}: {error}"))
}

/// Java's replacement syntax (`$1` a group, `\x` the character x) in the regex crate's.
fn java_replacement(java: &str) -> String {
    let mut out = String::new();
    let mut chars = java.chars().peekable();
    while let Some(char) = chars.next() {
        match char {
            '\\' => match chars.next() {
                Some('$') => out.push_str("$$"),
                Some(other) => out.push(other),
                None => {}
            },
            '$' => {
                let mut digits = String::new();
                while let Some(digit) = chars.next_if(char::is_ascii_digit) {
                    digits.push(digit);
                }
                if digits.is_empty() {
                    out.push_str("$$");
                } else {
                    out.push_str(&format!("${{{digits}}}"));
                }
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rules of Hadoop's own tests of `KerberosName`, with their default realm.
    const HADOOP_TEST_RULES: &str = "RULE:[1:$1@$0](.*@YAHOO\\.COM)s/@.*//\n\
         RULE:[2:$1](johndoe)s/^.*$/guest/\n\
         RULE:[2:$1;$2](^.*;admin$)s/;admin$//\n\
         RULE:[2:$2](root)\n\
         DEFAULT";

    #[test]
    fn hadoop_examples_map_as_documented() {
        let rules = PrincipalRules::parse(HADOOP_TEST_RULES, "APACHE.ORG").unwrap();
        for (principal, short) in [
            ("omalley@APACHE.ORG", "omalley"),
            ("hdfs/10.0.0.1@APACHE.ORG", "hdfs"),
            ("oom@YAHOO.COM", "oom"),
            ("johndoe/zoo@FOO.COM", "guest"),
            ("joe/admin@FOO.COM", "joe"),
            ("joe/root@FOO.COM", "root"),
            ("plain", "plain"),
        ] {
            assert_eq!(
                rules.short_name(principal).as_deref(),
                Ok(short),
                "{principal}"
            );
        }
        for unmapped in ["foo@ACME.COM", "root/joe@FOO.COM"] {
            let error = rules.short_name(unmapped).unwrap_err();
            assert!(error.contains("no auth_to_local rule maps"), "{error}");
        }
    }

    #[test]
    fn hadoop_secure_mode_service_rules_and_lower_case() {
        let rules = PrincipalRules::parse(
            "RULE:[2:$1/$2@$0]([ndj]n/.*@REALM\\.TLD)s/.*/hdfs/\n\
             RULE:[2:$1/$2@$0](jhs/.*@REALM\\.TLD)s/.*/mapred/\n\
             RULE:[1:$1@$0](.*@FOO\\.COM)s/@.*///L\n\
             DEFAULT",
            "REALM.TLD",
        )
        .unwrap();
        assert_eq!(
            rules.short_name("nn/host1@REALM.TLD").as_deref(),
            Ok("hdfs")
        );
        assert_eq!(
            rules.short_name("dn/host2@REALM.TLD").as_deref(),
            Ok("hdfs")
        );
        assert_eq!(
            rules.short_name("jhs/host3@REALM.TLD").as_deref(),
            Ok("mapred")
        );
        assert_eq!(rules.short_name("JOE@FOO.COM").as_deref(), Ok("joe"));
        assert_eq!(
            rules.short_name("hive/host4@REALM.TLD").as_deref(),
            Ok("hive")
        );
    }

    #[test]
    fn default_maps_the_first_component_of_the_default_realm_only() {
        let rules = PrincipalRules::parse(AUTH_TO_LOCAL_DEFAULT, "HIVESTORE.TEST").unwrap();
        assert_eq!(
            rules.short_name("alice@HIVESTORE.TEST").as_deref(),
            Ok("alice")
        );
        assert_eq!(
            rules.short_name("hive/localhost@HIVESTORE.TEST").as_deref(),
            Ok("hive")
        );
        assert!(rules.short_name("alice@OTHER.TEST").is_err());
        assert!(rules
            .short_name("a/b/c@HIVESTORE.TEST")
            .unwrap_err()
            .contains("malformed"));
    }

    #[test]
    fn global_substitution_and_java_group_references() {
        let rules = PrincipalRules::parse(
            "RULE:[1:$1](.*)s/a/x/g RULE:[2:$2-$1]s/(\\w+)-(\\w+)/$2_$1/",
            "R",
        )
        .unwrap();
        assert_eq!(rules.short_name("banana@R").as_deref(), Ok("bxnxnx"));
        assert_eq!(rules.short_name("svc/node@R").as_deref(), Ok("svc_node"));
    }

    #[test]
    fn bad_rules_are_refused_with_the_reason() {
        for (text, why) in [
            ("", "no rules"),
            ("RULE:[3:$1]", "1 or 2"),
            ("RULE:[1:$2]", "past the principal's 1 components"),
            ("RULE:[1:$x]", "followed by a number"),
            ("RULE:[1:$1](a(b)", "bad regular expression"),
            ("RULE:[1:$1]s/a", "no / after the pattern"),
            ("DEFAULTX", "unexpected text"),
            ("NOPE", "expected DEFAULT"),
        ] {
            let error = PrincipalRules::parse(text, "R").unwrap_err();
            assert!(error.contains(why), "{text}: {error}");
        }
        let error = PrincipalRules::parse("RULE:[1:$1@x]", "R")
            .unwrap()
            .short_name("a@R")
            .unwrap_err();
        assert!(error.contains("non-simple name a@x"), "{error}");
    }
}

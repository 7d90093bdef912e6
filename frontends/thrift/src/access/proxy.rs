//! Who may act as whom: Hadoop's proxy-user rules. A superuser (`hive`, a gateway's service
//! user) may act as another user when the rule under its name allows that user (by name or by
//! one of its groups) from the address it connects from, as `hadoop.proxyuser.<superuser>.users`,
//! `.groups` and `.hosts` say. A superuser with no hosts may act as nobody.

use std::collections::{BTreeMap, BTreeSet};
use std::net::{IpAddr, ToSocketAddrs};

/// Who a list of a rule admits: anyone (`*`) or those named.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
enum Members {
    /// Nobody: the list was not given or empty.
    #[default]
    Nobody,
    /// `*`.
    Anyone,
    /// The names listed.
    Named(BTreeSet<String>),
}

impl Members {
    fn parse(list: &str) -> Members {
        let names: BTreeSet<String> = list
            .split(',')
            .map(str::trim)
            .filter(|name| !name.is_empty())
            .map(str::to_string)
            .collect();
        if names.contains("*") {
            Members::Anyone
        } else if names.is_empty() {
            Members::Nobody
        } else {
            Members::Named(names)
        }
    }

    fn admits(&self, name: &str) -> bool {
        match self {
            Members::Nobody => false,
            Members::Anyone => true,
            Members::Named(names) => names.contains(name),
        }
    }

    fn admits_any(&self, names: &[String]) -> bool {
        match self {
            Members::Nobody => false,
            Members::Anyone => true,
            Members::Named(listed) => names.iter().any(|name| listed.contains(name)),
        }
    }
}

/// An address or network a superuser may connect from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Host {
    /// `*`.
    Any,
    /// An address and how many of its leading bits must match (all, for one address).
    Network(IpAddr, u8),
}

impl Host {
    fn parse(text: &str) -> Result<Vec<Host>, String> {
        if text == "*" {
            return Ok(vec![Host::Any]);
        }
        if let Some((address, bits)) = text.split_once('/') {
            let address: IpAddr = address.parse().map_err(|_| {
                format!("proxy-user host {text:?}: {address:?} is not an IP address")
            })?;
            let width = if address.is_ipv4() { 32 } else { 128 };
            let bits: u8 = bits
                .parse()
                .ok()
                .filter(|bits| *bits <= width)
                .ok_or_else(|| {
                    format!("proxy-user host {text:?}: the prefix is not 0..={width}")
                })?;
            return Ok(vec![Host::Network(address, bits)]);
        }
        if let Ok(address) = text.parse::<IpAddr>() {
            let width = if address.is_ipv4() { 32 } else { 128 };
            return Ok(vec![Host::Network(address, width)]);
        }
        // A host name stands for the addresses it resolves to at start, as Hadoop's list does.
        let addresses: Vec<Host> = (text, 0)
            .to_socket_addrs()
            .map_err(|error| format!("proxy-user host {text:?} does not resolve: {error}"))?
            .map(|address| {
                let ip = address.ip();
                Host::Network(ip, if ip.is_ipv4() { 32 } else { 128 })
            })
            .collect();
        Ok(addresses)
    }

    fn admits(&self, from: IpAddr) -> bool {
        let from = match from {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4),
            v4 => v4,
        };
        match (*self, from) {
            (Host::Any, _) => true,
            (Host::Network(IpAddr::V4(net), bits), IpAddr::V4(address)) => {
                prefix_matches(&net.octets(), &address.octets(), bits)
            }
            (Host::Network(IpAddr::V6(net), bits), IpAddr::V6(address)) => {
                prefix_matches(&net.octets(), &address.octets(), bits)
            }
            _ => false,
        }
    }
}

fn prefix_matches(network: &[u8], address: &[u8], bits: u8) -> bool {
    let bits = usize::from(bits);
    let whole = bits / 8;
    if network[..whole] != address[..whole] {
        return false;
    }
    let rest = bits % 8;
    if rest == 0 {
        return true;
    }
    let mask = 0xffu8 << (8 - rest);
    network[whole] & mask == address[whole] & mask
}

/// One superuser's rule.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Rule {
    users: Members,
    groups: Members,
    hosts: Vec<Host>,
}

/// The proxy-user rules, by superuser.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProxyUsers {
    rules: BTreeMap<String, Rule>,
}

/// Which list of a superuser's rule a setting gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProxyList {
    /// `hadoop.proxyuser.<superuser>.users`.
    Users,
    /// `hadoop.proxyuser.<superuser>.groups`.
    Groups,
    /// `hadoop.proxyuser.<superuser>.hosts`.
    Hosts,
}

impl ProxyUsers {
    /// Sets one list of a superuser's rule from `SUPERUSER=ITEM,ITEM` (`*` for any).
    pub fn set(&mut self, list: ProxyList, setting: &str) -> Result<(), String> {
        let Some((superuser, items)) = setting.split_once('=') else {
            return Err(format!(
                "proxy-user setting {setting:?} is not SUPERUSER=ITEM,ITEM (or SUPERUSER=*)"
            ));
        };
        let superuser = superuser.trim();
        if superuser.is_empty() {
            return Err(format!("proxy-user setting {setting:?} names no superuser"));
        }
        let rule = self.rules.entry(superuser.to_string()).or_default();
        match list {
            ProxyList::Users => rule.users = Members::parse(items),
            ProxyList::Groups => rule.groups = Members::parse(items),
            ProxyList::Hosts => {
                let mut hosts = Vec::new();
                for item in items
                    .split(',')
                    .map(str::trim)
                    .filter(|item| !item.is_empty())
                {
                    hosts.extend(Host::parse(item)?);
                }
                rule.hosts = hosts;
            }
        }
        Ok(())
    }

    /// Whether `user` is a superuser: it has a rule.
    pub fn is_superuser(&self, user: &str) -> bool {
        self.rules.contains_key(user)
    }

    /// Whether `superuser`, connected from `from`, may act as `user` of `user_groups`; if not,
    /// why, in Hadoop's words.
    pub fn authorize(
        &self,
        superuser: &str,
        from: IpAddr,
        user: &str,
        user_groups: &[String],
    ) -> Result<(), String> {
        let refused = || format!("User: {superuser} is not allowed to impersonate {user}");
        let rule = self.rules.get(superuser).ok_or_else(refused)?;
        if !(rule.users.admits(user) || rule.groups.admits_any(user_groups)) {
            return Err(refused());
        }
        if !rule.hosts.iter().any(|host| host.admits(from)) {
            return Err(format!(
                "Unauthorized connection for super-user: {superuser} from IP {from}"
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(settings: &[(ProxyList, &str)]) -> ProxyUsers {
        let mut proxy = ProxyUsers::default();
        for (list, setting) in settings {
            proxy.set(*list, setting).unwrap();
        }
        proxy
    }

    const LOOPBACK: IpAddr = IpAddr::V4(std::net::Ipv4Addr::LOCALHOST);

    #[test]
    fn a_superuser_acts_as_the_users_and_groups_it_lists_from_its_hosts() {
        let proxy = rules(&[
            (ProxyList::Users, "hive=alice"),
            (ProxyList::Groups, "hive=etl"),
            (ProxyList::Hosts, "hive=127.0.0.0/8,10.1.2.3"),
        ]);
        assert!(proxy.is_superuser("hive"));
        assert!(!proxy.is_superuser("alice"));
        assert_eq!(proxy.authorize("hive", LOOPBACK, "alice", &[]), Ok(()));
        let etl = ["etl".to_string()];
        assert_eq!(proxy.authorize("hive", LOOPBACK, "bob", &etl), Ok(()));
        let refused = proxy.authorize("hive", LOOPBACK, "carol", &[]).unwrap_err();
        assert_eq!(refused, "User: hive is not allowed to impersonate carol");
        let far: IpAddr = "10.1.2.4".parse().unwrap();
        let refused = proxy.authorize("hive", far, "alice", &[]).unwrap_err();
        assert!(refused.contains("Unauthorized connection for super-user: hive from IP 10.1.2.4"));
        let near: IpAddr = "10.1.2.3".parse().unwrap();
        assert_eq!(proxy.authorize("hive", near, "alice", &[]), Ok(()));
        let refused = proxy.authorize("alice", LOOPBACK, "bob", &[]).unwrap_err();
        assert_eq!(refused, "User: alice is not allowed to impersonate bob");
    }

    #[test]
    fn without_hosts_a_superuser_acts_as_nobody() {
        let proxy = rules(&[(ProxyList::Users, "hive=*")]);
        let refused = proxy.authorize("hive", LOOPBACK, "alice", &[]).unwrap_err();
        assert!(refused.contains("Unauthorized connection"), "{refused}");
        let proxy = rules(&[(ProxyList::Users, "hive=*"), (ProxyList::Hosts, "hive=*")]);
        assert_eq!(proxy.authorize("hive", LOOPBACK, "anyone", &[]), Ok(()));
        let mapped: IpAddr = "::ffff:127.0.0.1".parse().unwrap();
        let proxy = rules(&[
            (ProxyList::Users, "hive=*"),
            (ProxyList::Hosts, "hive=127.0.0.1"),
        ]);
        assert_eq!(proxy.authorize("hive", mapped, "alice", &[]), Ok(()));
    }

    #[test]
    fn bad_settings_are_refused_with_what_is_wrong() {
        let mut proxy = ProxyUsers::default();
        let error = proxy.set(ProxyList::Users, "hive").unwrap_err();
        assert!(error.contains("SUPERUSER=ITEM"), "{error}");
        let error = proxy.set(ProxyList::Users, "=alice").unwrap_err();
        assert!(error.contains("names no superuser"), "{error}");
        let error = proxy.set(ProxyList::Hosts, "hive=10.0.0.0/33").unwrap_err();
        assert!(error.contains("prefix"), "{error}");
        let error = proxy.set(ProxyList::Hosts, "hive=1.2.3.x/8").unwrap_err();
        assert!(error.contains("not an IP address"), "{error}");
    }

    #[test]
    fn networks_match_by_their_prefix() {
        assert!(prefix_matches(&[10, 1, 2, 3], &[10, 1, 200, 7], 16));
        assert!(!prefix_matches(&[10, 1, 2, 3], &[10, 2, 2, 3], 16));
        assert!(prefix_matches(&[192, 168, 1, 0], &[192, 168, 1, 127], 25));
        assert!(!prefix_matches(&[192, 168, 1, 0], &[192, 168, 1, 128], 25));
        assert!(prefix_matches(&[1, 2, 3, 4], &[9, 9, 9, 9], 0));
    }
}

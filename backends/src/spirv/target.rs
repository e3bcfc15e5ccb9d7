//! Target environments: which SPIR-V version and which rules the output follows.
//!
//! The spellings are dxc's (`-fspv-target-env=`): `vulkan1.0` (SPIR-V 1.0), `vulkan1.1` (1.3),
//! `vulkan1.1spirv1.4` (1.4), `vulkan1.2` (1.5, the default), `vulkan1.3` (1.6), and
//! `universal1.0` to `universal1.6` (that SPIR-V version, no Vulkan rules).

use std::fmt;
use std::str::FromStr;

/// A target environment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum TargetEnv {
    /// Vulkan 1.0, SPIR-V 1.0.
    Vulkan1_0,
    /// Vulkan 1.1, SPIR-V 1.3.
    Vulkan1_1,
    /// Vulkan 1.1 with SPIR-V 1.4 (`VK_KHR_spirv_1_4`).
    Vulkan1_1Spirv1_4,
    /// Vulkan 1.2, SPIR-V 1.5 (the default).
    #[default]
    Vulkan1_2,
    /// Vulkan 1.3, SPIR-V 1.6.
    Vulkan1_3,
    /// Plain SPIR-V of the given minor version (1.0 to 1.6), without Vulkan's rules.
    Universal(u8),
}

impl TargetEnv {
    /// Every spelled environment, for help texts and tests.
    pub const ALL: [TargetEnv; 12] = [
        TargetEnv::Vulkan1_0,
        TargetEnv::Vulkan1_1,
        TargetEnv::Vulkan1_1Spirv1_4,
        TargetEnv::Vulkan1_2,
        TargetEnv::Vulkan1_3,
        TargetEnv::Universal(0),
        TargetEnv::Universal(1),
        TargetEnv::Universal(2),
        TargetEnv::Universal(3),
        TargetEnv::Universal(4),
        TargetEnv::Universal(5),
        TargetEnv::Universal(6),
    ];

    /// The SPIR-V version `(major, minor)` the environment uses.
    pub fn spirv_version(self) -> (u8, u8) {
        match self {
            TargetEnv::Vulkan1_0 => (1, 0),
            TargetEnv::Vulkan1_1 => (1, 3),
            TargetEnv::Vulkan1_1Spirv1_4 => (1, 4),
            TargetEnv::Vulkan1_2 => (1, 5),
            TargetEnv::Vulkan1_3 => (1, 6),
            TargetEnv::Universal(minor) => (1, minor.min(6)),
        }
    }

    /// The SPIR-V minor version (the major is always 1).
    pub fn minor(self) -> u8 {
        self.spirv_version().1
    }

    /// True for the Vulkan environments.
    pub fn is_vulkan(self) -> bool {
        !matches!(self, TargetEnv::Universal(_))
    }

    /// The name `spirv-val --target-env` uses for this environment.
    pub fn spirv_val_name(self) -> String {
        match self {
            TargetEnv::Vulkan1_0 => "vulkan1.0".into(),
            TargetEnv::Vulkan1_1 => "vulkan1.1".into(),
            TargetEnv::Vulkan1_1Spirv1_4 => "vulkan1.1spv1.4".into(),
            TargetEnv::Vulkan1_2 => "vulkan1.2".into(),
            TargetEnv::Vulkan1_3 => "vulkan1.3".into(),
            TargetEnv::Universal(m) => format!("spv1.{m}"),
        }
    }
}

impl fmt::Display for TargetEnv {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TargetEnv::Vulkan1_0 => f.write_str("vulkan1.0"),
            TargetEnv::Vulkan1_1 => f.write_str("vulkan1.1"),
            TargetEnv::Vulkan1_1Spirv1_4 => f.write_str("vulkan1.1spirv1.4"),
            TargetEnv::Vulkan1_2 => f.write_str("vulkan1.2"),
            TargetEnv::Vulkan1_3 => f.write_str("vulkan1.3"),
            TargetEnv::Universal(m) => write!(f, "universal1.{m}"),
        }
    }
}

/// An unknown target environment name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown target environment `{0}` (expected vulkan1.0, vulkan1.1, vulkan1.1spirv1.4, vulkan1.2, vulkan1.3 or universal1.0..universal1.6)"
)]
pub struct UnknownTargetEnv(pub String);

impl FromStr for TargetEnv {
    type Err = UnknownTargetEnv;

    fn from_str(s: &str) -> Result<TargetEnv, UnknownTargetEnv> {
        Ok(match s {
            "vulkan1.0" => TargetEnv::Vulkan1_0,
            "vulkan1.1" => TargetEnv::Vulkan1_1,
            "vulkan1.1spirv1.4" => TargetEnv::Vulkan1_1Spirv1_4,
            "vulkan1.2" => TargetEnv::Vulkan1_2,
            "vulkan1.3" => TargetEnv::Vulkan1_3,
            _ => match s
                .strip_prefix("universal1.")
                .and_then(|m| m.parse::<u8>().ok())
            {
                Some(m) if m <= 6 => TargetEnv::Universal(m),
                _ => return Err(UnknownTargetEnv(s.to_string())),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_round_trip_and_versions_follow() {
        for env in TargetEnv::ALL {
            assert_eq!(env.to_string().parse::<TargetEnv>(), Ok(env));
        }
        assert_eq!(TargetEnv::default().spirv_version(), (1, 5));
        assert_eq!(TargetEnv::Vulkan1_1.spirv_version(), (1, 3));
        assert_eq!(
            "vulkan1.1spirv1.4".parse::<TargetEnv>().map(|e| e.minor()),
            Ok(4)
        );
        assert_eq!(TargetEnv::Universal(5).spirv_val_name(), "spv1.5");
        assert!("vulkan2.0".parse::<TargetEnv>().is_err());
        assert!("universal1.9".parse::<TargetEnv>().is_err());
    }
}

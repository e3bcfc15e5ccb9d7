//! The HLSL preprocessor flags every HLSL-reading command takes: `-D NAME[=VALUE]`,
//! `-DNAME[=VALUE]`, `-U NAME`, `-UNAME`, `-I DIR`, `-IDIR`.
//!
//! `-D` and `-U` are applied in command-line order (`-DX -UX` leaves `X` undefined), so the
//! struct implements clap's `Args` by hand to read the argument indices.

use std::path::PathBuf;

use clap::{Arg, ArgAction, ArgMatches, Args, Command, FromArgMatches};
use oneshader_frontends::hlsl::{MacroOp, PreprocessOptions};

/// Stack size of the thread the CLI runs the HLSL front end on.
pub const FRONT_END_STACK: usize = 64 << 20;

/// Preprocessor options from the command line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PreprocessorArgs {
    /// `-D`/`-U` operations in command-line order.
    pub macros: Vec<MacroOp>,
    /// `-I` folders in order.
    pub include_dirs: Vec<PathBuf>,
}

impl PreprocessorArgs {
    /// The options for the front end.
    pub fn options(&self) -> PreprocessOptions {
        PreprocessOptions {
            macros: self.macros.clone(),
            include_dirs: self.include_dirs.clone(),
        }
    }
}

const DEFINE: &str = "define";
const UNDEFINE: &str = "undefine";
const INCLUDE: &str = "include_dir";

impl FromArgMatches for PreprocessorArgs {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let mut s = PreprocessorArgs::default();
        s.update_from_arg_matches(m)?;
        Ok(s)
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        let mut ops: Vec<(usize, MacroOp)> = Vec::new();
        let indexed = |id: &str| -> Vec<(usize, String)> {
            match (m.get_many::<String>(id), m.indices_of(id)) {
                (Some(vals), Some(idx)) => idx.zip(vals.cloned()).collect(),
                _ => Vec::new(),
            }
        };
        for (i, v) in indexed(DEFINE) {
            ops.push((i, MacroOp::Define(v)));
        }
        for (i, v) in indexed(UNDEFINE) {
            ops.push((i, MacroOp::Undef(v)));
        }
        ops.sort_by_key(|(i, _)| *i);
        self.macros.extend(ops.into_iter().map(|(_, op)| op));
        if let Some(dirs) = m.get_many::<PathBuf>(INCLUDE) {
            self.include_dirs.extend(dirs.cloned());
        }
        Ok(())
    }
}

impl Args for PreprocessorArgs {
    fn augment_args(cmd: Command) -> Command {
        cmd.arg(
            Arg::new(DEFINE)
                .short('D')
                .value_name("NAME[=VALUE]")
                .action(ArgAction::Append)
                .help("Define a macro (value 1 when none is given); -DNAME or -D NAME"),
        )
        .arg(
            Arg::new(UNDEFINE)
                .short('U')
                .value_name("NAME")
                .action(ArgAction::Append)
                .help("Undefine a macro; -UNAME or -U NAME"),
        )
        .arg(
            Arg::new(INCLUDE)
                .short('I')
                .value_name("DIR")
                .value_parser(clap::value_parser!(PathBuf))
                .action(ArgAction::Append)
                .help("Add a folder to the #include search path; -IDIR or -I DIR"),
        )
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser, Debug)]
    struct T {
        #[command(flatten)]
        pp: PreprocessorArgs,
        file: String,
    }

    #[test]
    fn attached_and_separate_forms_keep_order() {
        let t = T::try_parse_from([
            "x", "-DA=1", "-D", "B", "-UA", "-U", "C", "-Iinc", "-I", "other", "f.hlsl", "-DA",
        ])
        .unwrap();
        assert_eq!(
            t.pp.macros,
            vec![
                MacroOp::Define("A=1".into()),
                MacroOp::Define("B".into()),
                MacroOp::Undef("A".into()),
                MacroOp::Undef("C".into()),
                MacroOp::Define("A".into()),
            ]
        );
        assert_eq!(
            t.pp.include_dirs,
            vec![PathBuf::from("inc"), PathBuf::from("other")]
        );
        assert_eq!(t.file, "f.hlsl");
    }
}

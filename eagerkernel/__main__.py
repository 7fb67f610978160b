"""``python -m eagerkernel install|uninstall|info``: the Eager kernel's kernelspec and devices.

``install`` writes the kernelspec ``eager`` ("Eager (Python 3)", with logos) through
jupyter_client's `KernelSpecManager`; ``uninstall`` removes it; ``info`` lists the devices
and where the kernelspec is installed.

Without a location flag, ``install`` goes into the running environment (``--sys-prefix``)
when Python runs in a virtualenv or conda environment, so the Jupyter of that environment
sees it, and into the user's Jupyter directory (``--user``) otherwise.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from importlib import resources
from pathlib import Path

__all__ = ["KERNEL_NAME", "info", "install", "kernel_json", "main", "uninstall"]

KERNEL_NAME = "eager"
DISPLAY_NAME = "Eager (Python 3)"
LOGOS = ("logo-32x32.png", "logo-64x64.png")


def kernel_json(
    display_name: str = DISPLAY_NAME,
    python: str | None = None,
    env: dict[str, str] | None = None,
) -> dict:
    """The kernel.json content: how Jupyter starts the kernel with this Python.

    >>> kernel_json(python="/usr/bin/python3")["argv"]
    ['/usr/bin/python3', '-m', 'eagerkernel.kernel', '-f', '{connection_file}']
    """
    spec = {
        "argv": [python or sys.executable, "-m", "eagerkernel.kernel", "-f", "{connection_file}"],
        "display_name": display_name,
        "language": "python",
        "interrupt_mode": "signal",
        "metadata": {"debugger": True},
    }
    if env:
        spec["env"] = dict(env)
    return spec


def _in_environment() -> bool:
    return sys.prefix != sys.base_prefix or (Path(sys.prefix) / "conda-meta").is_dir()


def install(
    user: bool = False,
    prefix: str | None = None,
    kernel_name: str = KERNEL_NAME,
    display_name: str = DISPLAY_NAME,
    env: dict[str, str] | None = None,
) -> str:
    """Installs the kernelspec and returns the directory it went to.

    Args:
        user: install for the current user (``~/.local/share/jupyter/kernels``).
        prefix: install under ``PREFIX/share/jupyter/kernels`` (``sys.prefix`` for
            ``--sys-prefix``). With neither, the system-wide Jupyter directory.
        kernel_name: the kernelspec's name (``eager``).
        display_name: the name frontends show.
        env: environment variables set for the kernel process.

    Raises:
        PermissionError: if the target directory is not writable.
    """
    from jupyter_client.kernelspec import KernelSpecManager

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / kernel_name
        path.mkdir()
        (path / "kernel.json").write_text(json.dumps(kernel_json(display_name, env=env), indent=1))
        logos = resources.files("eagerkernel") / "resources"
        for logo in LOGOS:
            with resources.as_file(logos / logo) as src:
                shutil.copy(src, path / logo)
        return KernelSpecManager().install_kernel_spec(
            str(path), kernel_name=kernel_name, user=user, prefix=prefix
        )


def uninstall(kernel_name: str = KERNEL_NAME) -> str:
    """Removes the kernelspec (the first one Jupyter finds) and returns its directory.

    Raises:
        KeyError: if no such kernelspec is installed.
    """
    from jupyter_client.kernelspec import KernelSpecManager

    try:
        return KernelSpecManager().remove_kernel_spec(kernel_name)
    except KeyError:  # jupyter_client raises KeyError or its subclass NoSuchKernel
        raise KeyError(f"no kernelspec named {kernel_name!r} is installed") from None


def info(kernel_name: str = KERNEL_NAME) -> str:
    """Version, devices (default marked, virtual GPUs labelled) and the kernelspec location."""
    from jupyter_client.kernelspec import KernelSpecManager

    import eagerkernel as ek

    from .runtime.config import get_default_device
    from .runtime.core.device import list_devices

    default = get_default_device()
    lines = [f"eagerkernel {ek.__version__} (Python {sys.version.split()[0]}, {sys.executable})"]
    lines.append("Devices:")
    for d in list_devices():
        mark = "*" if d.name == default else " "
        lines.append(f"  {mark} {d.describe()}")
    where = KernelSpecManager().find_kernel_specs().get(kernel_name)
    if where:
        lines.append(f"Kernelspec {kernel_name!r}: {where}")
    else:
        lines.append(
            f"Kernelspec {kernel_name!r}: not installed (run: python -m eagerkernel install)"
        )
    return "\n".join(lines)


def _parse_env(items: list[str]) -> dict[str, str]:
    env = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise SystemExit(f"install: --env expects NAME=VALUE. Received: {item!r}.")
        env[name] = value
    return env


def main(argv: list[str] | None = None) -> int:
    """The command line; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m eagerkernel", description="Manage the Eager Jupyter kernel."
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p_install = sub.add_parser("install", help="install the 'eager' kernelspec")
    where = p_install.add_mutually_exclusive_group()
    where.add_argument("--user", action="store_true", help="install for the current user")
    where.add_argument(
        "--sys-prefix", action="store_true", help=f"install into this environment ({sys.prefix})"
    )
    where.add_argument("--prefix", metavar="P", help="install under P/share/jupyter/kernels")
    p_install.add_argument("--name", default=KERNEL_NAME, help="kernelspec name (default eager)")
    p_install.add_argument("--display-name", default=DISPLAY_NAME, help="name shown by Jupyter")
    p_install.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="environment variable for the kernel (repeatable)",
    )

    p_uninstall = sub.add_parser("uninstall", help="remove the 'eager' kernelspec")
    p_uninstall.add_argument("--name", default=KERNEL_NAME, help="kernelspec name (default eager)")

    p_info = sub.add_parser("info", help="list devices and where the kernelspec is")
    p_info.add_argument("--name", default=KERNEL_NAME, help="kernelspec name (default eager)")

    args = parser.parse_args(argv)
    if args.command == "install":
        prefix = args.prefix
        user = args.user
        if args.sys_prefix or (prefix is None and not user):
            if args.sys_prefix or _in_environment():
                prefix = sys.prefix
            else:
                user = True
        try:
            path = install(
                user=user,
                prefix=prefix,
                kernel_name=args.name,
                display_name=args.display_name,
                env=_parse_env(args.env),
            )
        except PermissionError as e:
            print(f"install: {e}. Try --user or --sys-prefix.", file=sys.stderr)
            return 1
        print(f"Installed kernelspec {args.name!r} ({args.display_name}) in {path}")
    elif args.command == "uninstall":
        try:
            path = uninstall(args.name)
        except KeyError as e:
            print(f"uninstall: {e.args[0]}", file=sys.stderr)
            return 1
        print(f"Removed kernelspec {args.name!r} from {path}")
    else:
        print(info(args.name))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""`tagpipe explain MODEL`: what runs natively and what is delegated, stage by stage."""

from __future__ import annotations

import argparse

from tagpipe.cli.resources import load_model


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", help='a tokenizer.json, a directory holding one, a Hub id, or "bundled"')


def run(args: argparse.Namespace) -> int:
    print(load_model(args.model)[0].explain())
    return 0

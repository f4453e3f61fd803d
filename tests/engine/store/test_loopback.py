"""The embedded session listens on the loopback address only: nothing off the machine has a
reason to reach a local Spark's driver (its RPC endpoint, its block manager, the Python
gateway), and an open port on the network address is one more thing to defend."""
from __future__ import annotations

import os
import socket
import struct


def _listening_addresses(pid: int) -> list[str]:
    """The addresses the process's TCP sockets listen on (from /proc)."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    found = []
    for table, family in (("tcp", socket.AF_INET), ("tcp6", socket.AF_INET6)):
        with open(f"/proc/{pid}/net/{table}") as lines:
            next(lines)
            for line in lines:
                fields = line.split()
                local, state, inode = fields[1], fields[3], fields[9]
                if state != "0A" or inode not in inodes:  # 0A: LISTEN
                    continue
                raw = bytes.fromhex(local.split(":")[0])
                # /proc prints each 32-bit word in the machine's byte order
                words = b"".join(struct.pack("=I", int.from_bytes(raw[i:i + 4], "big")) for i in range(0, len(raw), 4))
                found.append(socket.inet_ntop(family, words))
    return found


def test_the_embedded_session_listens_on_loopback_only(spark):
    jvm = spark.sparkContext._gateway.proc.pid
    addresses = _listening_addresses(jvm)
    assert len(addresses) >= 2, f"the driver's RPC and block manager ports were not found: {addresses}"
    loopback = {"127.0.0.1", "::1", "::ffff:127.0.0.1"}
    assert set(addresses) <= loopback, f"the JVM listens beyond loopback: {addresses}"
    assert spark.conf.get("spark.driver.host") == "127.0.0.1"

"""The embedded session's local file system: Hadoop's, minus a process per created file
and per rename (reasonlake.engine.store.local_fs)."""
from __future__ import annotations

import gc
import os
import stat

import pytest

from reasonlake.engine.store import local_fs


def _needs_jar(tmp_path):
    if local_fs.compiled_jar(tmp_path / "cache") is None:
        pytest.skip("no javac here (a JRE only): the session keeps Hadoop's local file system")


def test_the_embedded_session_uses_it(spark, tmp_path):
    _needs_jar(tmp_path)
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    assert conf.get("fs.file.impl") == local_fs.FILE_SYSTEM
    assert conf.get("fs.AbstractFileSystem.file.impl") == local_fs.ABSTRACT_FILE_SYSTEM
    jvm = spark._jvm
    fs = jvm.org.apache.hadoop.fs.FileSystem.get(jvm.java.net.URI("file:///"), conf)
    assert fs.getRaw().getClass().getName() == "io.reasonlake.fs.InProcessRawLocalFileSystem"


def test_files_get_hadoops_permissions_and_checksums(spark, tmp_path):
    _needs_jar(tmp_path)
    jvm = spark._jvm
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    fs = jvm.org.apache.hadoop.fs.FileSystem.get(jvm.java.net.URI("file:///"), conf)
    path = jvm.org.apache.hadoop.fs.Path(f"file://{tmp_path}/a/data.bin")
    out = fs.create(path, True)
    out.write(bytearray(b"facts"))
    out.close()
    # the default file permission with the default umask (022), as Hadoop's chmod gave
    assert stat.S_IMODE(os.stat(tmp_path / "a" / "data.bin").st_mode) == 0o644
    assert (tmp_path / "a" / ".data.bin.crc").is_file()  # the checksum layer is Hadoop's
    for mode in (0o750, 0o1750):  # the sticky bit goes through Hadoop's own chmod
        fs.setPermission(path, jvm.org.apache.hadoop.fs.permission.FsPermission(mode))
        assert stat.S_IMODE(os.stat(tmp_path / "a" / "data.bin").st_mode) == mode
    # FileContext rename (Delta's log store) onto a new name; a link's status stays a link's
    fc = jvm.org.apache.hadoop.fs.FileContext.getFileContext(conf)
    target = jvm.org.apache.hadoop.fs.Path(f"file://{tmp_path}/a/renamed.bin")
    options = spark.sparkContext._gateway.new_array(jvm.org.apache.hadoop.fs.Options.Rename, 1)
    options[0] = jvm.org.apache.hadoop.fs.Options.Rename.NONE
    fc.rename(path, target, options)
    assert (tmp_path / "a" / "renamed.bin").read_bytes() == b"facts"
    assert not (tmp_path / "a" / "data.bin").exists()
    os.symlink(tmp_path / "a" / "renamed.bin", tmp_path / "a" / "link.bin")
    hadoops = jvm.org.apache.hadoop.fs.RawLocalFileSystem()
    hadoops.initialize(jvm.java.net.URI("file:///"), conf)
    for name in ("renamed.bin", "link.bin", "."):
        at = jvm.org.apache.hadoop.fs.Path(f"file://{tmp_path}/a/{name}")
        ours, theirs = fs.getRaw().getFileLinkStatus(at), hadoops.getFileLinkStatus(at)
        assert (ours.isSymlink(), ours.isDirectory(), ours.getLen()) == (
            theirs.isSymlink(), theirs.isDirectory(), theirs.getLen())


def test_a_delta_table_round_trips_through_it(spark, tmp_path):
    path = str(tmp_path / "t")
    spark.range(10).write.format("delta").save(path)
    spark.range(10, 15).write.format("delta").mode("append").save(path)
    spark.range(3).write.format("delta").mode("overwrite").option("replaceWhere", "id < 100").save(path)
    assert sorted(r.id for r in spark.read.format("delta").load(path).collect()) == [0, 1, 2]
    assert len([f for f in os.listdir(tmp_path / "t" / "_delta_log") if f.endswith(".json")]) == 3


def test_hadoops_own_classes_without_javac_on_a_cluster_or_when_asked(tmp_path, monkeypatch):
    assert local_fs.spark_conf("spark://cluster:7077", tmp_path) == {}
    assert local_fs.spark_conf("local-cluster[2,1,1024]", tmp_path) == {}  # executors in JVMs of their own
    monkeypatch.setenv("REASONLAKE_LOCAL_FS", "hadoop")
    assert local_fs.spark_conf("local[2]", tmp_path) == {}
    monkeypatch.delenv("REASONLAKE_LOCAL_FS")
    monkeypatch.setattr(local_fs, "_javac", lambda: None)
    assert local_fs.spark_conf("local[2]", tmp_path) == {}
    assert not (tmp_path / "local-fs").exists()


def test_a_compilation_failure_keeps_hadoops_classes(tmp_path, monkeypatch):
    if local_fs._javac() is None:
        pytest.skip("no javac here")
    broken = tmp_path / "src"
    broken.mkdir()
    (broken / "Broken.java").write_text("class Broken { void f() { undefined(); } }")
    monkeypatch.setattr(local_fs, "SOURCES", broken)
    assert local_fs.compiled_jar(tmp_path / "cache") is None
    assert not list((tmp_path / "cache").glob("*.jar"))
    # remembered: the next session does not compile again
    (failed,) = (tmp_path / "cache").glob("*.failed")
    assert "undefined" in failed.read_text()
    monkeypatch.setattr(local_fs.subprocess, "run", lambda *a, **k: pytest.fail("compiled again"))
    assert local_fs.compiled_jar(tmp_path / "cache") is None


def test_the_collector_is_held_off_for_a_close_and_restored():
    from reasonlake.engine.process.collector import held_off

    assert gc.isenabled()
    with held_off():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with held_off():
            pass
        assert not gc.isenabled()  # a process that turned it off keeps it off
    finally:
        gc.enable()
    with pytest.raises(RuntimeError):
        with held_off():
            raise RuntimeError("a failing close")
    assert gc.isenabled()

"""A home given as a URI stays a URI: no code path takes it for a local folder (no Spark, no
S3 server). And what an s3a:// home adds to the embedded session, from the AWS variables."""
from __future__ import annotations

from pathlib import Path

import pytest

from reasonlake.engine.store import access, locations, object_store
from reasonlake.engine.store.home import Home, resolve_home
from reasonlake.errors import HomeError, UsageError

URIS = ["s3a://b/x", "abfss://c@a.dfs.core.windows.net/x", "gs://b/x", "dbfs:/x"]


class _NoSession:
    """A session no reader may use: a local-folder reader that takes the home for a folder
    would not reach it, one that falls back to Spark would fail here loudly."""

    def __getattr__(self, name):
        raise AssertionError(f"the session was used ({name}) where a local-folder reader should have said no")


@pytest.mark.parametrize("uri", URIS)
def test_a_uri_home_keeps_its_uri_and_every_table_stays_under_it(uri):
    root = resolve_home(uri + "/")
    assert root == uri
    home = Home(spark=None, root=root)
    paths = [home.path("events"), home.mat_path("v"), home.removed_path("v"), home.repairs_path("v"),
             home.path("_writer")]
    for path in paths:
        assert isinstance(path, str) and path.startswith(uri + "/"), path
        assert locations.local_path(path) is None, path
        # the access mode chosen for it reads nothing on disk and leaves the rows to Spark
        mode = access.of(_NoSession(), path)
        assert mode.name == "classic-session" and mode.folder(path) is None, mode
        assert mode.rows(path) is None and mode.history(path) is None and mode.query({"t": (path, None)}, "", 1) is None
    assert home.sql_name("events") == f"delta.`{uri}/events`"
    assert not Path(uri.split(":", 1)[0] + ":").exists()  # nothing made a folder named after the scheme


def test_a_unity_catalog_volume_is_a_path_kept_as_given():
    # /Volumes/... is a FUSE folder on Databricks: a path, kept as given, every table under it
    root = resolve_home("/Volumes/cat/sch/vol/x")
    assert root == "/Volumes/cat/sch/vol/x"
    home = Home(spark=None, root=root)
    assert home.mat_path("v") == "/Volumes/cat/sch/vol/x/mat_v"
    assert not Path("/Volumes/cat").exists()  # resolving made nothing


def test_only_an_s3a_home_or_input_adds_s3a_to_the_session(monkeypatch, tmp_path):
    from reasonlake.api import Lakehouse

    for name, value in (("AWS_ACCESS_KEY_ID", "k"), ("AWS_SECRET_ACCESS_KEY", "s"),
                        ("AWS_ENDPOINT_URL", "http://127.0.0.1:9"), ("AWS_REGION", "eu-west-1")):
        monkeypatch.setenv(name, value)
    assert Lakehouse(str(tmp_path / "lake"))._object_store() is None
    assert Lakehouse(str(tmp_path / "lake"), inputs=[str(tmp_path / "a.jsonl"), "file:///a"])._object_store() is None
    for lake in (Lakehouse("s3a://b/lake"), Lakehouse(str(tmp_path / "lake"), inputs=["s3a://b/in/"])):
        packages, conf = lake._object_store()
        assert packages[0] == "org.apache.hadoop:hadoop-aws:3.5.0"
        assert not any("bundle" in p for p in packages)
        assert conf["spark.hadoop.fs.s3a.endpoint"] == "http://127.0.0.1:9"
        assert conf["spark.hadoop.fs.s3a.path.style.access"] == "true"
        assert conf["spark.hadoop.fs.s3a.connection.ssl.enabled"] == "false"
        assert conf["spark.hadoop.fs.s3a.endpoint.region"] == "eu-west-1"
    assert "software.amazon.awssdk:bundle" in object_store.EXCLUDED
    options = object_store.storage_options(object_store.settings())
    assert options == {"AWS_ENDPOINT_URL": "http://127.0.0.1:9", "AWS_ALLOW_HTTP": "true", "AWS_REGION": "eu-west-1",
                       "AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "s"}
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", "https://s3.example.net")  # the S3-specific one wins
    assert "spark.hadoop.fs.s3a.connection.ssl.enabled" not in object_store.spark_conf(object_store.settings())
    assert "AWS_ALLOW_HTTP" not in object_store.storage_options(object_store.settings())


def test_an_s3a_home_without_credentials_is_refused_naming_the_variables(monkeypatch, tmp_path):
    from reasonlake.api import Lakehouse

    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_PROFILE", "AWS_WEB_IDENTITY_TOKEN_FILE",
                 "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_CREDENTIALS_FULL_URI",
                 "REASONLAKE_S3_INSTANCE_ROLE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    with pytest.raises(HomeError, match="no S3 credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"):
        Lakehouse("s3a://b/lake")._object_store()
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "k")
    with pytest.raises(HomeError, match="AWS_SECRET_ACCESS_KEY is not set"):
        Lakehouse("s3a://b/lake")._object_store()
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "s")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UsageError, match="keeps a Hive metastore in the home, a local folder"):
        Lakehouse("s3a://b/lake", metastore=True).home  # before any folder or session is made
    assert not any(tmp_path.iterdir())
    monkeypatch.setenv("AWS_ENDPOINT_URL", "127.0.0.1:9000")
    with pytest.raises(HomeError, match="not an http:// or https:// address"):
        Lakehouse("s3a://b/lake")._object_store()


def test_a_local_home_takes_no_writer_claim(tmp_path):
    from reasonlake.engine.store import writer_claim

    with writer_claim.writing(str(tmp_path / "lake"), "slide v"):
        pass
    assert not (tmp_path / "lake").exists()
    assert writer_claim.needed("s3a://b/lake") and not writer_claim.needed(str(tmp_path))


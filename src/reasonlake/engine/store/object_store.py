"""A home (or an input) on object storage, ``s3a://``: what Spark and delta-rs need to reach it,
taken from the standard AWS environment variables, in one place (decision 0038).

Spark reaches S3 through Hadoop's S3A file system (``hadoop-aws``, the version of the Hadoop
client pyspark ships), which the embedded session adds as Maven packages only when a home or
an input is ``s3a://``: a local home downloads nothing new. ``hadoop-aws``'s pom asks for the
AWS SDK's ``bundle``, one 640 MB jar of every AWS service; it is excluded and the SDK modules
S3A uses are named instead (``packages``, ``EXCLUDED``).

The endpoint and the credentials are the AWS CLI's and SDKs' own variables: ``AWS_ENDPOINT_URL``
(``AWS_ENDPOINT_URL_S3`` first, as the SDKs take it), ``AWS_ACCESS_KEY_ID``,
``AWS_SECRET_ACCESS_KEY``, ``AWS_SESSION_TOKEN``, ``AWS_REGION`` (else ``AWS_DEFAULT_REGION``).
They become S3A's settings for Spark (``spark_conf``) and delta-rs's storage options
(``storage_options``), so both see the same store with the same keys. Without keys in the
environment, a profile, a web identity or a container's credentials let the AWS providers find
them; with none of those either, ``settings`` stops naming the variables to set.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

from reasonlake.errors import HomeError
from reasonlake.settings import environment, is_set

SCHEMES = ("s3a",)

# pyspark 4.2 ships hadoop-client 3.5.0: hadoop-aws must be the same version.
HADOOP_AWS = "org.apache.hadoop:hadoop-aws:3.5.0"
# the SDK version hadoop-aws 3.5.0 is built against (hadoop-project's aws-java-sdk-v2.version)
AWS_SDK = "2.35.4"
# What S3A loads of the SDK: the S3 client (with its HTTP clients, auth and regions, which
# Ivy brings as its dependencies) and the transfer manager (S3A's copies and uploads).
SDK_MODULES = ("s3", "s3-transfer-manager")
# hadoop-aws's own dependency on every AWS service in one 640 MB jar: never downloaded.
EXCLUDED = ("software.amazon.awssdk:bundle",)


def is_object_store(uri: str) -> bool:
    """Whether ``uri`` names a place on S3 (``s3a://bucket/...``)."""
    return urlparse(uri).scheme.lower() in SCHEMES


def packages() -> tuple[str, ...]:
    """The Maven packages an embedded session needs to read and write ``s3a://``."""
    return (HADOOP_AWS, *(f"software.amazon.awssdk:{m}:{AWS_SDK}" for m in SDK_MODULES))


@dataclass(frozen=True)
class S3Settings:
    endpoint: str | None  # None: AWS's own endpoint for the region
    access_key: str | None  # None: the AWS providers find the keys (profile, role, container)
    secret_key: str | None
    session_token: str | None
    region: str | None

    @property
    def plain_http(self) -> bool:
        return self.endpoint is not None and self.endpoint.lower().startswith("http://")


def settings(where: str = "the home") -> S3Settings:
    """The S3 endpoint and credentials of the environment; stops with an error naming what
    to set when ``where`` (the home, an input) could not be reached with them."""
    endpoint = environment("AWS_ENDPOINT_URL_S3") or environment("AWS_ENDPOINT_URL") or None
    key, secret = environment("AWS_ACCESS_KEY_ID") or None, environment("AWS_SECRET_ACCESS_KEY") or None
    if endpoint is not None and urlparse(endpoint).scheme not in ("http", "https"):
        raise HomeError(f"{where}: AWS_ENDPOINT_URL={endpoint} is not an http:// or https:// address; "
                        "set it to the S3 server's address, e.g. http://127.0.0.1:9000")
    if (key is None) != (secret is None):
        missing = "AWS_SECRET_ACCESS_KEY" if secret is None else "AWS_ACCESS_KEY_ID"
        raise HomeError(f"{where}: {missing} is not set (the other key is); set both, or neither to use a profile or role")
    if key is None and not _other_credentials():
        raise HomeError(
            f"{where}: no S3 credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY "
            "(and AWS_ENDPOINT_URL for a server other than AWS, AWS_REGION for its region), "
            "or AWS_PROFILE; on a machine whose instance role provides them, REASONLAKE_S3_INSTANCE_ROLE=1")
    region = environment("AWS_REGION") or environment("AWS_DEFAULT_REGION") or None
    token = (environment("AWS_SESSION_TOKEN") or None) if key is not None else None  # a token goes with its keys
    return S3Settings(endpoint, key, secret, token, region)


def _other_credentials() -> bool:
    """Whether the AWS providers have somewhere else to find keys: a profile, a web identity
    (EKS), a container's endpoint (ECS), the shared credentials file, or an instance role
    (``AWS_EC2_METADATA_DISABLED`` not set: S3A and delta-rs both ask the instance)."""
    if any(environment(name) for name in ("AWS_PROFILE", "AWS_WEB_IDENTITY_TOKEN_FILE",
                                       "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_CREDENTIALS_FULL_URI")):
        return True
    shared = environment("AWS_SHARED_CREDENTIALS_FILE") or str(Path.home() / ".aws" / "credentials")
    if Path(shared).is_file():
        return True
    return is_set("REASONLAKE_S3_INSTANCE_ROLE", "1")


# Each setting's name for S3A (Spark) and for delta-rs: one description of the store, two
# renderings. Spark redacts the keys (``spark.redaction.regex`` matches ``secret``, ``token``,
# ``access.key``).
_NAMES = {
    "endpoint": ("spark.hadoop.fs.s3a.endpoint", "AWS_ENDPOINT_URL"),
    "region": ("spark.hadoop.fs.s3a.endpoint.region", "AWS_REGION"),
    "access_key": ("spark.hadoop.fs.s3a.access.key", "AWS_ACCESS_KEY_ID"),
    "secret_key": ("spark.hadoop.fs.s3a.secret.key", "AWS_SECRET_ACCESS_KEY"),
    "session_token": ("spark.hadoop.fs.s3a.session.token", "AWS_SESSION_TOKEN"),
}


def _named(found: S3Settings, side: int) -> dict[str, str]:
    return {names[side]: getattr(found, field) for field, names in _NAMES.items() if getattr(found, field) is not None}


def spark_conf(found: S3Settings) -> dict[str, str]:
    """S3A's settings for an embedded session (``spark.hadoop.fs.s3a.*``)."""
    conf = _named(found, 0)
    if found.endpoint is not None:
        # a server of its own (MinIO, moto, Ceph) names buckets in the path, not the host name
        conf["spark.hadoop.fs.s3a.path.style.access"] = "true"
        if found.plain_http:
            conf["spark.hadoop.fs.s3a.connection.ssl.enabled"] = "false"
    if found.session_token is not None:
        conf["spark.hadoop.fs.s3a.aws.credentials.provider"] = "org.apache.hadoop.fs.s3a.TemporaryAWSCredentialsProvider"
    return conf


def storage_options(found: S3Settings) -> dict[str, str]:
    """delta-rs's storage options for the same store. delta-rs 1.x commits to S3 with a
    conditional put (``If-None-Match``), so its commits need no locking provider."""
    options = _named(found, 1)
    if found.plain_http:
        options["AWS_ALLOW_HTTP"] = "true"
    return options

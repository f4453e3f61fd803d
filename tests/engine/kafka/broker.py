"""A single-node Kafka broker (KRaft) for tests: the Apache Kafka jars from Maven Central
(resolved once with the Ivy that pyspark ships, cached under ~/.cache/reasonlake), run in a
JVM of their own on free ports, and a producer run as a Java source file."""
from __future__ import annotations

import base64
import socket
import subprocess
import time
import uuid
from pathlib import Path

KAFKA = ("org.apache.kafka", "kafka_2.13", "4.4.0")
HERE = Path(__file__).resolve().parent


def _jars() -> Path:
    import pyspark

    folder = Path.home() / ".cache" / "reasonlake" / "test-kafka" / KAFKA[2]
    if (folder / "done").exists():
        return folder
    ivy = next((Path(pyspark.__file__).parent / "jars").glob("ivy-*.jar"))
    run = subprocess.run(["java", "-jar", str(ivy), "-dependency", *KAFKA, "-confs", "default",
                          "-retrieve", f"{folder}/[artifact]-[revision](-[classifier]).[ext]"],
                         capture_output=True, text=True, timeout=600)
    if run.returncode:
        raise RuntimeError(f"could not fetch the Kafka jars from Maven Central:\n{run.stdout[-3000:]}")
    (folder / "done").touch()
    return folder


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


class Broker:
    def __init__(self, folder: Path):
        self.jars = _jars()
        self.port, controller = _free_port(), _free_port()
        self.bootstrap = f"localhost:{self.port}"
        data = folder / "data"
        config = folder / "server.properties"
        config.write_text("\n".join([
            "process.roles=broker,controller", "node.id=1",
            f"controller.quorum.bootstrap.servers=localhost:{controller}",
            f"listeners=PLAINTEXT://localhost:{self.port},CONTROLLER://localhost:{controller}",
            f"advertised.listeners=PLAINTEXT://localhost:{self.port}",
            "controller.listener.names=CONTROLLER",
            "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
            f"log.dirs={data}", "num.partitions=1", "auto.create.topics.enable=true",
            "offsets.topic.replication.factor=1", "transaction.state.log.replication.factor=1",
            "transaction.state.log.min.isr=1", "share.coordinator.state.topic.replication.factor=1",
            "share.coordinator.state.topic.min.isr=1", "group.initial.rebalance.delay.ms=0", ""]))
        classpath = f"{self.jars}/*"
        cluster = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        subprocess.run(["java", "-cp", classpath, "kafka.tools.StorageTool", "format", "--standalone",
                        "-t", cluster, "-c", str(config)], check=True, capture_output=True, timeout=120)
        self.log = folder / "broker.log"
        self.process = subprocess.Popen(["java", "-Xmx512m", "-cp", classpath, "kafka.Kafka", str(config)],
                                        stdout=open(self.log, "wb"), stderr=subprocess.STDOUT)
        self._wait()

    def _wait(self) -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the Kafka broker exited: {self.log.read_text()[-3000:]}")
            with socket.socket() as s:
                if s.connect_ex(("localhost", self.port)) == 0:
                    return
            time.sleep(0.5)
        raise RuntimeError(f"the Kafka broker did not start in 2 minutes: {self.log.read_text()[-3000:]}")

    def produce(self, topic: str, messages: list[str]) -> None:
        """Each message to partition 0 of ``topic``, in order (offsets 0, 1, ... of a new topic)."""
        text = "".join(m + "\n---\n" for m in messages)
        run = subprocess.run(["java", "-cp", f"{self.jars}/*", str(HERE / "Produce.java"), self.bootstrap, topic],
                             input=text, capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr[-3000:]

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()

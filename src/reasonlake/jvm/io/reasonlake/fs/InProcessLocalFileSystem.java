package io.reasonlake.fs;

import org.apache.hadoop.fs.LocalFileSystem;

/** {@code fs.file.impl}: the local file system (checksums included) over {@link InProcessRawLocalFileSystem}. */
public class InProcessLocalFileSystem extends LocalFileSystem {
  public InProcessLocalFileSystem() {
    super(new InProcessRawLocalFileSystem());
  }
}

"""Reading and writing: tables in every supported format, JSON text, fingerprints of inputs."""

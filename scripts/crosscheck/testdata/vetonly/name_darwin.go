package vetonly

import "fmt"

func name() string { return fmt.Sprintf("%d", "darwin") }

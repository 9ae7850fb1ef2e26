package responsefile_test

import "errors"

func childConsume(arg string) error { return errors.New("not yet") }

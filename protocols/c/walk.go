package c

import (
	"reflect"

	"modernc.org/cc/v4"
)

var tokenType = reflect.TypeOf(cc.Token{})

// walkShallow calls f with each syntax node directly below n (tokens
// left out).
func walkShallow(n cc.Node, f func(cc.Node)) {
	v := reflect.ValueOf(n)
	if !v.IsValid() || v.Kind() == reflect.Pointer && v.IsNil() {
		return
	}
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return
	}
	for i := range v.NumField() {
		fv := v.Field(i)
		if !v.Type().Field(i).IsExported() || fv.Type() == tokenType {
			continue
		}
		if (fv.Kind() == reflect.Pointer || fv.Kind() == reflect.Interface) && fv.IsNil() {
			continue
		}
		if c, ok := fv.Interface().(cc.Node); ok {
			f(c)
		}
	}
}

// walk calls f with n and every syntax node below it.
func walk(n cc.Node, f func(cc.Node)) {
	if n == nil {
		return
	}
	f(n)
	walkShallow(n, func(c cc.Node) { walk(c, f) })
}

import torch
a=torch.randn(256,256,device='cuda').to(torch.float8_e4m3fn)
b=torch.randn(256,256,device='cuda').to(torch.float8_e4m3fn).t()
one=torch.tensor(1.0,device='cuda')
for dt in (torch.float32, torch.bfloat16):
    try:
        r=torch._scaled_mm(a,b,scale_a=one,scale_b=one,out_dtype=dt); torch.cuda.synchronize(); print(dt,"ok",r.float().abs().sum().item())
    except Exception as e: print(dt,"failed",e)
print(torch.__version__, torch.version.cuda)
